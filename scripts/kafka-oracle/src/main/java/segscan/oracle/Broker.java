package segscan.oracle;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;

/**
 * One KRaft combined-mode node (broker + controller, node id 1) in a child JVM, bound to
 * 127.0.0.1 on free ports, with tiered storage enabled and {@link LocalDirRsm} as the RSM.
 * Everything the node writes lives under {@code work}: {@code logdir/} (log.dirs), {@code
 * metadata/} (metadata.log.dir), {@code remote/} (the RSM's store), {@code server.properties},
 * {@code server.log}.
 */
public final class Broker implements AutoCloseable {
    public static final int NODE_ID = 1;
    /** Partitions of __remote_log_metadata; small so a fixture does not carry 50 empty ones. */
    public static final int RLMM_PARTITIONS = 5;
    /** Preallocated size of an active segment's .index/.timeindex (Kafka default 10 MiB). */
    public static final int INDEX_BYTES = 4096;
    public static final long TASK_INTERVAL_MS = 1000;

    final Path work;
    final Path logDir;
    final Path remoteDir;
    final Path metaDir;
    final Path props;
    final String clusterId;
    final long timeoutMs;
    final int port;
    final int controllerPort;
    final int jmxPort;
    final Map<String, String> config = new TreeMap<>();
    final Options opts;
    final int nodeId;
    private volatile Process proc;
    private int starts;

    /**
     * How a node differs from the original single combined node. The defaults reproduce it
     * exactly, so the cases written before these options existed keep their broker_config.
     */
    static final class Options {
        int nodeId = NODE_ID;
        /** "broker,controller" or "broker". */
        String roles = "broker,controller";
        /** controller.quorum.voters; null: this node alone (it must then be a controller). */
        String voters;
        /** null: a fresh random cluster id. Every node of one cluster shares it. */
        String clusterId;
        /** false: metadata.log.dir unset, so __cluster_metadata-0 lands in log.dirs (Kafka's default layout). */
        boolean separateMetadataDir = true;
        /** The RSM store; null: work/remote. Nodes of one cluster share one store, as with a real object store. */
        Path remoteDir;
        /** -Xmx of the node's JVM. */
        String heap = "1g";
        /** Extra server.properties lines (static broker configs), applied last. */
        final Map<String, String> extra = new TreeMap<>();
        /** Also a SASL_PLAINTEXT listener (mechanism PLAIN, user {@link #SASL_USER}) on a free port. */
        boolean sasl;
        /**
         * The RSM: {@link #RSM_LOCAL_DIR} (the harness's own {@link LocalDirRsm}, every release) or
         * {@link #RSM_LOCAL_TIERED_STORAGE} (Kafka's own LocalTieredStorage from the kafka-storage
         * test jar, on the class path only when the harness was built with -Dlts: 4.2.1, 4.3.1).
         */
        String rsm = RSM_LOCAL_DIR;
        /** LocalTieredStorage's rsm.config.delete.enable; null: unset (Kafka's default, true). */
        Boolean rsmDeleteEnable;
        /**
         * The control directory of {@link Stall} (copies held on a test's command), for either RSM;
         * with LocalTieredStorage it also makes {@code lts.StallingTransferer} its transferer.class.
         * null: no stalling, Kafka's default transferer.
         */
        Path stallDir;
        /**
         * With LocalTieredStorage and a stallDir: the RSM is {@code lts.DeleteStallingLts}
         * (LocalTieredStorage whose deletes can be held, {@link Stall#maybeStallDelete}).
         */
        boolean deleteStall;
        /** The Prometheus JMX exporter java agent jar and its rules file; null: no exporter. */
        Path jmxExporterJar;
        Path jmxExporterRules;
        /**
         * The exporter's includeObjectNames (MBean patterns it collects); empty: every MBean, as
         * the example rules alone do. The rules decide names and labels, so a filter changes which
         * series exist, never what they are called. A full collection of a broker's ~8000 series
         * takes seconds on a loaded machine; the defaults (Scenario) keep it small.
         */
        final List<String> jmxExporterInclude = new ArrayList<>();
    }

    static final String RSM_LOCAL_DIR = "local-dir";
    static final String RSM_LOCAL_TIERED_STORAGE = "local-tiered-storage";
    static final String LTS_CLASS = "org.apache.kafka.server.log.remote.storage.LocalTieredStorage";
    static final String STALLING_TRANSFERER = "segscan.oracle.lts.StallingTransferer";
    static final String DELETE_STALLING_LTS = "segscan.oracle.lts.DeleteStallingLts";

    static final String SASL_USER = "segscan";
    static final String SASL_PASSWORD = "segscan-secret";
    /** The SASL_PLAINTEXT listener's port, -1 without one. */
    final int saslPort;
    /** The JMX exporter's HTTP port (Prometheus text at /metrics on 127.0.0.1), -1 without one. */
    final int metricsPort;

    Broker(Path work, long timeoutMs) throws IOException {
        this(work, timeoutMs, new Options());
    }

    Broker(Path work, long timeoutMs, Options o) throws IOException {
        this.work = work;
        this.opts = o;
        this.nodeId = o.nodeId;
        this.logDir = work.resolve("logdir");
        this.remoteDir = o.remoteDir != null ? o.remoteDir : work.resolve("remote");
        this.metaDir = work.resolve("metadata");
        this.props = work.resolve("server.properties");
        this.timeoutMs = timeoutMs;
        this.clusterId = o.clusterId != null ? o.clusterId : Uuid.randomUuid().toString();
        this.port = freePort();
        this.controllerPort = o.roles.contains("controller") ? freePort() : -1;
        this.jmxPort = freePort();
        this.saslPort = o.sasl ? freePort() : -1;
        this.metricsPort = o.jmxExporterJar != null ? freePort() : -1;
        Files.createDirectories(logDir);
        Files.createDirectories(remoteDir);
        writeConfig();
    }

    /** This node's entry in controller.quorum.voters (controllers only). */
    String voter() {
        return nodeId + "@127.0.0.1:" + controllerPort;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    private void writeConfig() throws IOException {
        Map<String, String> c = config;
        c.put("process.roles", opts.roles);
        c.put("node.id", Integer.toString(nodeId));
        c.put("controller.quorum.voters", opts.voters != null ? opts.voters : voter());
        c.put("listeners", "PLAINTEXT://127.0.0.1:" + port
                + (controllerPort > 0 ? ",CONTROLLER://127.0.0.1:" + controllerPort : ""));
        c.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        c.put("controller.listener.names", "CONTROLLER");
        c.put("inter.broker.listener.name", "PLAINTEXT");
        c.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        if (saslPort > 0) {
            // A second listener for clients that authenticate (the live-cluster tests' wrong password).
            c.put("listeners", c.get("listeners") + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort);
            c.put("advertised.listeners", c.get("advertised.listeners") + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort);
            c.put("listener.security.protocol.map", c.get("listener.security.protocol.map")
                    + ",SASL_PLAINTEXT:SASL_PLAINTEXT");
            c.put("sasl.enabled.mechanisms", "PLAIN");
            c.put("listener.name.sasl_plaintext.plain.sasl.jaas.config",
                    "org.apache.kafka.common.security.plain.PlainLoginModule required user_" + SASL_USER + "=\""
                            + SASL_PASSWORD + "\";");
        }
        c.put("log.dirs", logDir.toAbsolutePath().toString());
        // The KRaft metadata log keeps its active segment's 10 MiB preallocated indexes even after
        // a clean shutdown (its config ignores log.index.size.max.bytes); in its own dir it stays
        // out of the captured data log dir, as on brokers with a dedicated metadata.log.dir.
        if (opts.separateMetadataDir) c.put("metadata.log.dir", metaDir.toAbsolutePath().toString());
        c.put("num.partitions", "1");
        c.put("default.replication.factor", "1");
        c.put("auto.create.topics.enable", "false");
        c.put("offsets.topic.replication.factor", "1");
        c.put("offsets.topic.num.partitions", "1");
        c.put("transaction.state.log.replication.factor", "1");
        c.put("transaction.state.log.min.isr", "1");
        c.put("transaction.state.log.num.partitions", "1");
        c.put("share.coordinator.state.topic.replication.factor", "1");
        c.put("share.coordinator.state.topic.min.isr", "1");
        c.put("group.initial.rebalance.delay.ms", "0");
        // Retention, cleaning and tiering must act within seconds, not the 30 s-5 min defaults.
        c.put("log.initial.task.delay.ms", "1000");
        c.put("log.retention.check.interval.ms", "1000");
        c.put("log.cleaner.backoff.ms", "1000");
        c.put("log.segment.delete.delay.ms", "1000");
        c.put("log.index.size.max.bytes", Integer.toString(INDEX_BYTES));
        c.put("remote.log.storage.system.enable", "true");
        if (opts.rsm.equals(RSM_LOCAL_TIERED_STORAGE)) {
            // Kafka's LocalTieredStorage keeps its files under <dir>/kafka-tiered-storage/.
            c.put("remote.log.storage.manager.class.name", opts.deleteStall && opts.stallDir != null ? DELETE_STALLING_LTS : LTS_CLASS);
            c.put("rsm.config.dir", remoteDir.toAbsolutePath().toString());
            if (opts.rsmDeleteEnable != null) c.put("rsm.config.delete.enable", opts.rsmDeleteEnable.toString());
            if (opts.stallDir != null) c.put("rsm.config.transferer.class", STALLING_TRANSFERER);
        } else if (opts.rsm.equals(RSM_LOCAL_DIR)) {
            c.put("remote.log.storage.manager.class.name", LocalDirRsm.class.getName());
            c.put("rsm.config." + LocalDirRsm.DIR_CONFIG, remoteDir.toAbsolutePath().toString());
        } else {
            throw new IllegalArgumentException("unknown RSM " + opts.rsm);
        }
        c.put("remote.log.metadata.manager.listener.name", "PLAINTEXT");
        c.put("rlmm.config.remote.log.metadata.topic.replication.factor", "1");
        c.put("rlmm.config.remote.log.metadata.topic.num.partitions", Integer.toString(RLMM_PARTITIONS));
        c.put("remote.log.manager.task.interval.ms", Long.toString(TASK_INTERVAL_MS));
        c.putAll(opts.extra);
        StringBuilder sb = new StringBuilder("# written by segscan kafka-oracle\n");
        for (Map.Entry<String, String> e : c.entrySet()) sb.append(e.getKey()).append('=').append(e.getValue()).append('\n');
        Files.write(props, sb.toString().getBytes(StandardCharsets.UTF_8));
        String log4j = String.join("\n",
                "status = warn",
                "appender.f.type = File",
                "appender.f.name = F",
                "appender.f.fileName = " + work.resolve("server.log").toAbsolutePath(),
                "appender.f.append = true",
                "appender.f.layout.type = PatternLayout",
                "appender.f.layout.pattern = [%d] %p %m (%c)%n",
                "rootLogger.level = INFO",
                "rootLogger.appenderRef.f.ref = F",
                "logger.rlm.name = org.apache.kafka.server.log.remote",
                "logger.rlm.level = DEBUG",
                "");
        Files.write(work.resolve("log4j2.properties"), log4j.getBytes(StandardCharsets.UTF_8));
    }

    private List<String> javaCmd(String mainClass) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + opts.heap);
        cmd.add("-Xms128m");
        cmd.add("-XX:+UseG1GC");
        cmd.add("-Djava.awt.headless=true");
        cmd.add("-Dlog4j2.configurationFile=" + work.resolve("log4j2.properties").toAbsolutePath());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        return cmd;
    }

    private int runChild(List<String> cmd, Path out, long timeout) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()));
        Process p = pb.start();
        if (!p.waitFor(timeout, TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out after " + timeout + " ms: " + String.join(" ", cmd) + " (see " + out + ")");
        }
        return p.exitValue();
    }

    /** kafka-storage format, as an operator would run it, in its own JVM. */
    void format() throws IOException, InterruptedException {
        List<String> cmd = javaCmd("kafka.tools.StorageTool");
        cmd.add("kafka.tools.StorageTool");
        cmd.addAll(List.of("format", "-t", clusterId, "-c", props.toAbsolutePath().toString()));
        Path out = work.resolve("format.out");
        int rc = runChild(cmd, out, timeoutMs);
        if (rc != 0) {
            throw new IOException("kafka-storage format failed (exit " + rc + "): " + Files.readString(out));
        }
    }

    /** Starts the node's JVM without waiting for it: cluster members wait for each other. */
    void launch() throws Exception {
        if (proc != null && proc.isAlive()) throw new IllegalStateException("already running");
        List<String> cmd = javaCmd("kafka.Kafka");
        cmd.add(1, "-Dcom.sun.management.jmxremote.port=" + jmxPort);
        cmd.add(1, "-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort);
        cmd.add(1, "-Dcom.sun.management.jmxremote.host=127.0.0.1");
        cmd.add(1, "-Djava.rmi.server.hostname=127.0.0.1");
        cmd.add(1, "-Dcom.sun.management.jmxremote.authenticate=false");
        cmd.add(1, "-Dcom.sun.management.jmxremote.ssl=false");
        cmd.add(1, "-Dcom.sun.management.jmxremote.local.only=true");
        cmd.add(1, "-Dcom.sun.management.jmxremote");
        if (opts.stallDir != null) cmd.add(1, "-Dsegscan.stall.dir=" + opts.stallDir.toAbsolutePath());
        if (metricsPort > 0) {
            // The real exporter, as operators run it: [host:]port:config.yml, bound to loopback. The
            // config is the rules file verbatim, after the includeObjectNames filter if any.
            Path conf = work.resolve("jmx-exporter.yml");
            StringBuilder y = new StringBuilder("# written by segscan kafka-oracle: includeObjectNames, then "
                    + opts.jmxExporterRules.toAbsolutePath() + " verbatim\n");
            if (!opts.jmxExporterInclude.isEmpty()) {
                y.append("includeObjectNames:\n");
                for (String inc : opts.jmxExporterInclude) y.append("  - \"").append(inc).append("\"\n");
            }
            y.append(Files.readString(opts.jmxExporterRules, StandardCharsets.UTF_8));
            Files.writeString(conf, y.toString(), StandardCharsets.UTF_8);
            cmd.add(1, "-javaagent:" + opts.jmxExporterJar.toAbsolutePath() + "=127.0.0.1:" + metricsPort + ":"
                    + conf.toAbsolutePath());
        }
        cmd.add("kafka.Kafka");
        cmd.add(props.toAbsolutePath().toString());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve("broker.out").toFile()));
        proc = pb.start();
        starts++;
        Oracle.log("node " + nodeId + " started (pid " + proc.pid() + ", start #" + starts + ", port " + port + ")");
    }

    void start() throws Exception {
        launch();
        waitReady();
    }

    /** Fails fast when the node's JVM is gone (a bad config stops it within seconds). */
    void checkAlive() throws IOException {
        if (proc != null && !proc.isAlive()) {
            throw new IOException("node " + nodeId + " exited with " + proc.exitValue() + "; see "
                    + work.resolve("broker.out") + " and " + work.resolve("server.log"));
        }
    }

    int starts() {
        return starts;
    }

    Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "segscan-oracle-admin");
        return Admin.create(p);
    }

    /** Up, answering, and the remote-log metadata topic created and led (tiered topics need it). */
    void waitReady() throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        Exception last = null;
        try (Admin a = admin()) {
            while (System.currentTimeMillis() < deadline) {
                if (!proc.isAlive()) {
                    throw new IOException("broker exited with " + proc.exitValue() + " during startup; see "
                            + work.resolve("broker.out") + " and " + work.resolve("server.log"));
                }
                try {
                    Set<String> names = a.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions()
                            .listInternal(true)).names().get(30, TimeUnit.SECONDS);
                    if (names.contains("__remote_log_metadata")) {
                        if (allLed(a, names)) return;
                    }
                } catch (Exception e) {
                    last = e;
                }
                Thread.sleep(250);
            }
        }
        throw new IOException("broker not ready within " + timeoutMs + " ms (last error: " + last + "); see "
                + work.resolve("server.log"));
    }

    static boolean allLed(Admin a, Set<String> topics) throws Exception {
        Map<String, TopicDescription> d = a.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
        for (TopicDescription td : d.values()) {
            for (TopicPartitionInfo pi : td.partitions()) {
                // One node: led by it. Several: led by some live broker (placement is the controller's).
                if (pi.leader() == null || pi.leader().isEmpty()) return false;
            }
        }
        return true;
    }

    /** SIGTERM and wait for Kafka's shutdown hook: a clean shutdown, .kafka_cleanshutdown written. */
    void stop() throws Exception {
        if (proc == null) return;
        proc.destroy();
        if (!proc.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
            proc.destroyForcibly();
            proc.waitFor(10, TimeUnit.SECONDS);
            throw new IOException("broker did not stop within " + timeoutMs + " ms after SIGTERM (killed)");
        }
        Oracle.log("node " + nodeId + " stopped (exit " + proc.exitValue() + ")");
        proc = null;
    }

    /** SIGKILL: no clean shutdown, no .kafka_cleanshutdown; what a crash leaves. */
    void kill() throws Exception {
        if (proc == null) return;
        proc.destroyForcibly();
        if (!proc.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) throw new IOException("node " + nodeId + " did not die after SIGKILL");
        Oracle.log("node " + nodeId + " killed (exit " + proc.exitValue() + ")");
        proc = null;
    }

    boolean running() {
        return proc != null && proc.isAlive();
    }

    /** The exporter's URL, null without one. */
    String metricsUrl() {
        return metricsPort > 0 ? "http://127.0.0.1:" + metricsPort + "/metrics" : null;
    }

    void restart() throws Exception {
        stop();
        start();
    }

    @Override
    public void close() {
        if (proc != null && proc.isAlive()) {
            proc.destroyForcibly();
            try {
                proc.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * server.properties as written, with the absolute paths that differ per run replaced by
     * placeholders: {@code log.dirs=LOGDIR} (tests substitute the fixture's logdir path),
     * {@code metadata.log.dir=METADATADIR}, {@code rsm.config.dir=REMOTEDIR}.
     */
    String fixtureProperties() throws IOException {
        StringBuilder sb = new StringBuilder();
        for (String l : Files.readAllLines(props, StandardCharsets.UTF_8)) {
            if (l.startsWith("log.dirs=")) l = "log.dirs=LOGDIR";
            else if (l.startsWith("metadata.log.dir=")) l = "metadata.log.dir=METADATADIR";
            else if (l.startsWith("rsm.config." + LocalDirRsm.DIR_CONFIG + "=")) l = "rsm.config." + LocalDirRsm.DIR_CONFIG + "=REMOTEDIR";
            sb.append(l).append('\n');
        }
        return sb.toString();
    }

    /**
     * The running broker's own release, from its AppInfoParser MBean
     * ({@code kafka.server:type=app-info,id=<node>}: Version, CommitId, StartTimeMs), i.e. what the
     * broker JVM loaded, not what this harness was built against.
     */
    Map<String, Object> appInfo() throws Exception {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi");
        Map<String, Object> out = new LinkedHashMap<>();
        try (JMXConnector c = JMXConnectorFactory.connect(url, Map.of())) {
            MBeanServerConnection s = c.getMBeanServerConnection();
            ObjectName n = new ObjectName("kafka.server:type=app-info,id=" + nodeId);
            out.put("object_name", n.getCanonicalName());
            for (String a : new String[] {"Version", "CommitId", "StartTimeMs"}) {
                try {
                    out.put(a, s.getAttribute(n, a));
                } catch (Exception e) {
                    out.put(a, null);
                }
            }
        }
        return out;
    }

    /**
     * Kafka's own numbers at this instant, over JMX on loopback: the tiered-storage gauges and
     * meters (kafka.server BrokerTopicMetrics Remote*, kafka.log.remote) and the per-partition
     * Log gauges (Size, NumLogSegments, LogStartOffset, LogEndOffset).
     */
    List<Object> readJmx() throws Exception {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi");
        List<Object> out = new ArrayList<>();
        try (JMXConnector c = JMXConnectorFactory.connect(url, Map.of())) {
            MBeanServerConnection s = c.getMBeanServerConnection();
            TreeMap<String, ObjectName> names = new TreeMap<>();
            for (String pat : new String[] {"kafka.server:type=BrokerTopicMetrics,*", "kafka.log.remote:*",
                                            "kafka.log:type=Log,*"}) {
                for (ObjectName n : s.queryNames(new ObjectName(pat), null)) {
                    String name = n.getKeyProperty("name");
                    if (n.getDomain().equals("kafka.server") && (name == null || !name.startsWith("Remote"))) continue;
                    names.put(n.getCanonicalName(), n);
                }
            }
            for (ObjectName n : names.values()) {
                Map<String, Object> attrs = new LinkedHashMap<>();
                List<String> want = new ArrayList<>();
                for (MBeanAttributeInfo ai : s.getMBeanInfo(n).getAttributes()) {
                    // Rates and percentiles depend on wall-clock timing; totals and values do not.
                    if (ai.getName().equals("Value") || ai.getName().equals("Count")) want.add(ai.getName());
                }
                AttributeList al = s.getAttributes(n, want.toArray(new String[0]));
                for (Attribute at : al.asList()) attrs.put(at.getName(), at.getValue());
                Map<String, Object> props = new TreeMap<>(n.getKeyPropertyList());
                out.add(Json.obj("object_name", n.getCanonicalName(), "domain", n.getDomain(),
                        "type", props.get("type"), "name", props.get("name"),
                        "topic", props.get("topic"),
                        "partition", props.get("partition") == null ? null
                                : Integer.valueOf(props.get("partition").toString()),
                        "attributes", attrs));
            }
        }
        return out;
    }
}
