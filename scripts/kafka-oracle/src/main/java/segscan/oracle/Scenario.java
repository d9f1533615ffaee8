package segscan.oracle;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.server.log.remote.metadata.storage.RemoteLogMetadataTopicPartitioner;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;

/**
 * A scenario cluster for conformance tests: 1..3 brokers of the Kafka release the harness was
 * built against, on 127.0.0.1 with free ports, tiered topics at the replication factors a test
 * asks for, Kafka's own LocalTieredStorage (or the harness's LocalDirRsm) as the RSM, the real
 * Prometheus JMX exporter on every broker, driven over stdin and answering with Kafka's own
 * readings, one JSON line per command (always with {@code "ok"}; on failure {@code "error"}).
 * The protocol, the options and a worked example are in docs/conformance.md ("Scenario
 * clusters"); tests/harness.sh is the shell side.
 *
 * <p>Records carry CreateTime from a base 24 h in the past, one produce round = one segment per
 * partition ({@code segment.ms} is half the spacing of rounds in record time), so every segment
 * boundary is where the test puts it and nothing depends on the wall clock.
 *
 * <p>EOF on stdin, {@code quit}, or SIGTERM stops the cluster (SIGTERM to every node) and exits.
 */
public final class Scenario {
    static final long MIN = 60_000L;
    /** Record-time distance between produce rounds; segment.ms is half of it, so each round rolls. */
    static final long ROLL = 120_000L;
    static final String RLMM = "__remote_log_metadata";
    /** The exporter's default includeObjectNames: what the tiered-storage tests read. */
    static final List<String> DEFAULT_JMX_INCLUDE = List.of("kafka.server:type=BrokerTopicMetrics,*",
            "kafka.log.remote:*", "kafka.log:type=Log,*", "kafka.server:type=app-info,*");

    static final class TopicSpec {
        String name;
        int partitions;
        int rf;
        final Map<String, String> config = new TreeMap<>();
    }

    final Cluster cl;
    final long timeoutMs;
    final String rsm;
    final Path remoteDir;
    final Path stallDir;
    final List<TopicSpec> topics;
    final long t0 = System.currentTimeMillis() - 24 * 60 * MIN;
    int round;
    /** Per partition: the last offset of its closed segments after the latest produce (-1: none). */
    final Map<TopicPartition, Long> closedEnd = new HashMap<>();
    final Map<String, org.apache.kafka.common.Uuid> topicIds = new HashMap<>();

    Scenario(Cluster cl, long timeoutMs, String rsm, Path stallDir, List<TopicSpec> topics) {
        this.cl = cl;
        this.timeoutMs = timeoutMs;
        this.rsm = rsm;
        this.remoteDir = cl.remoteDir;
        this.stallDir = stallDir;
        this.topics = topics;
    }

    static void usage(String why) {
        throw new IllegalArgumentException(why + "; usage: Scenario --work DIR [--timeout-ms N] [--brokers 1..3]"
                + " [--rsm local-tiered-storage|local-dir] [--rsm-delete-enable true|false] [--no-stall] [--delete-stall]"
                + " [--jmx-exporter JAR --jmx-rules YML [--jmx-include PATTERN|all]...] [--broker-config K=V]... [--topic NAME:PARTS:RF[:K=V,...]]..."
                + " [--rounds N]");
    }

    public static void main(String[] argv) throws Exception {
        Path work = null;
        long timeoutMs = 120_000;
        int n = 1;
        int rounds = 2;
        String rsm = null;
        Boolean deleteEnable = null;
        boolean stall = true;
        boolean deleteStall = false;
        Path agent = null;
        Path rules = null;
        Map<String, String> extra = new TreeMap<>();
        List<TopicSpec> topics = new ArrayList<>();
        List<String> include = new ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (i + 1 >= argv.length && !a.equals("--no-stall") && !a.equals("--delete-stall")) usage(a + " needs a value");
            switch (a) {
                case "--work": work = Paths.get(argv[++i]); break;
                case "--timeout-ms": timeoutMs = Long.parseLong(argv[++i]); break;
                case "--brokers": n = Integer.parseInt(argv[++i]); break;
                case "--rounds": rounds = Integer.parseInt(argv[++i]); break;
                case "--rsm": rsm = argv[++i]; break;
                case "--rsm-delete-enable": deleteEnable = Boolean.valueOf(argv[++i]); break;
                case "--no-stall": stall = false; break;
                case "--delete-stall": deleteStall = true; break;
                case "--jmx-exporter": agent = Paths.get(argv[++i]); break;
                case "--jmx-rules": rules = Paths.get(argv[++i]); break;
                case "--jmx-include": include.add(argv[++i]); break;
                case "--broker-config": {
                    String kv = argv[++i];
                    int eq = kv.indexOf('=');
                    if (eq <= 0) usage("--broker-config wants K=V, got " + kv);
                    extra.put(kv.substring(0, eq), kv.substring(eq + 1));
                    break;
                }
                case "--topic": topics.add(parseTopic(argv[++i])); break;
                default: usage("unknown argument " + a);
            }
        }
        if (work == null) usage("--work DIR is required");
        if (n < 1 || n > 3) usage("--brokers must be 1..3");
        if ((agent == null) != (rules == null)) usage("--jmx-exporter and --jmx-rules go together");
        if (include.isEmpty()) include.addAll(DEFAULT_JMX_INCLUDE);
        include.remove("all");   // --jmx-include all: no filter, every MBean
        boolean haveLts = hasClass(Broker.LTS_CLASS);
        if (rsm == null) rsm = haveLts ? Broker.RSM_LOCAL_TIERED_STORAGE : Broker.RSM_LOCAL_DIR;
        if (rsm.equals(Broker.RSM_LOCAL_TIERED_STORAGE) && !haveLts) {
            throw new IllegalStateException("LocalTieredStorage is not on the class path: this Kafka release "
                    + "has no kafka-storage test jar on Maven Central (4.4.0), or the harness was built without -Dlts (scripts/kafka-oracle/build.sh does it for 4.2.1 and 4.3.1)");
        }
        if (deleteStall && (!rsm.equals(Broker.RSM_LOCAL_TIERED_STORAGE) || !stall)) {
            usage("--delete-stall holds LocalTieredStorage's deletes (with the stall directory: not with --no-stall)");
        }
        if (deleteEnable != null && !rsm.equals(Broker.RSM_LOCAL_TIERED_STORAGE)) {
            usage("--rsm-delete-enable is LocalTieredStorage's delete.enable");
        }
        if (topics.isEmpty()) {
            for (int rf = 1; rf <= n; rf++) {
                TopicSpec t = new TopicSpec();
                t.name = "sc-rf" + rf;
                t.partitions = Math.max(2, n);
                t.rf = rf;
                topics.add(t);
            }
        }
        for (TopicSpec t : topics) if (t.rf > n) usage("topic " + t.name + " has replication factor " + t.rf + " > " + n + " brokers");

        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
        System.setOut(System.err);   // Oracle.log and the brokers' chatter: stderr, not the protocol
        Files.createDirectories(work);
        Path stallDir = stall ? work.resolve("stall") : null;
        if (stallDir != null) Files.createDirectories(stallDir);
        final String rsmF = rsm;
        final Boolean delF = deleteEnable;
        final boolean delStallF = deleteStall;
        final Path agentF = agent;
        final Path rulesF = rules;
        final List<String> includeF = include;
        Map<String, String> cfg = new TreeMap<>();
        cfg.put("log.segment.bytes", "1048576");
        cfg.putAll(extra);
        final Cluster cl = Cluster.start(work, timeoutMs, n, cfg, false, o -> {
            o.rsm = rsmF;
            o.rsmDeleteEnable = delF;
            o.stallDir = stallDir;
            o.deleteStall = delStallF;
            o.jmxExporterJar = agentF;
            o.jmxExporterRules = rulesF;
            o.jmxExporterInclude.addAll(includeF);
        });
        Runtime.getRuntime().addShutdownHook(new Thread(cl::close));
        Scenario sc = new Scenario(cl, timeoutMs, rsm, stallDir, topics);
        try {
            sc.setup(rounds);
            out.println(Json.line(sc.hello()));
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                line = line.trim();
                if (line.isEmpty() || line.startsWith("#")) continue;
                if (line.equals("quit")) break;
                Object ans;
                long t = System.currentTimeMillis();
                try {
                    ans = sc.command(line.split("\\s+"));
                } catch (Exception e) {
                    e.printStackTrace();
                    ans = Json.obj("ok", false, "error", String.valueOf(e));
                }
                Oracle.log("scenario: " + line + " (" + (System.currentTimeMillis() - t) + " ms)");
                out.println(Json.line(ans));
            }
            cl.stop();
        } finally {
            cl.close();
        }
    }

    static boolean hasClass(String name) {
        try {
            Class.forName(name, false, Scenario.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** NAME:PARTITIONS:RF[:K=V,K=V...] */
    static TopicSpec parseTopic(String s) {
        String[] f = s.split(":", 4);
        if (f.length < 3) usage("--topic wants NAME:PARTITIONS:RF[:K=V,...], got " + s);
        TopicSpec t = new TopicSpec();
        t.name = f[0];
        t.partitions = Integer.parseInt(f[1]);
        t.rf = Integer.parseInt(f[2]);
        if (f.length == 4 && !f[3].isEmpty()) {
            for (String kv : f[3].split(",")) {
                int eq = kv.indexOf('=');
                if (eq <= 0) usage("topic config wants K=V, got " + kv);
                t.config.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        return t;
    }

    Object command(String[] w) throws Exception {
        String c = w[0];
        List<String> args = Arrays.asList(w).subList(1, w.length);
        switch (c) {
            case "hello": return hello();
            case "produce": return produce(args.isEmpty() ? "*" : args.get(0), args.size() > 1 ? Integer.parseInt(args.get(1)) : 1);
            case "wait-copied": return waitCopied(args.isEmpty() ? "*" : args.get(0));
            case "append": need(args, 4, "append TOPIC-PARTITION COUNT VALUE_BYTES TS|now+MS|now-MS [STEP_MS]");
                return append(tp(args.get(0)), Integer.parseInt(args.get(1)), Integer.parseInt(args.get(2)),
                        timestamp(args.get(3)), args.size() > 4 ? Long.parseLong(args.get(4)) : 0);
            case "wait-tiered": need(args, 2, "wait-tiered TOPIC-PARTITION OFFSET");
                return waitTiered(tp(args.get(0)), Long.parseLong(args.get(1)));
            case "state": return state(args.isEmpty() ? "*" : args.get(0));
            case "jmx": return jmx(args.isEmpty() ? 0 : Integer.parseInt(args.get(0)));
            case "elect": return elect(args);
            case "reassign": need(args, 2, "reassign TOPIC-PARTITION R1,R2,..."); return reassign(tp(args.get(0)), args.get(1));
            case "stop": need(args, 1, "stop NODE"); return node(args.get(0), "stop");
            case "kill": need(args, 1, "kill NODE"); return node(args.get(0), "kill");
            case "start": need(args, 1, "start NODE"); return node(args.get(0), "start");
            case "stall": return stall(args);
            case "wait-stalled": return waitStalled(args.isEmpty() ? 1 : Integer.parseInt(args.get(0)));
            case "release": return release();
            case "stall-delete": return stallDelete(args);
            case "wait-delete-stalled": return waitDeleteStalled(args);
            case "release-delete": return releaseDelete(args);
            case "gauge": need(args, 4, "gauge NODE TOPIC NAME present|absent|zero|=V|!=V|>V");
                return gauge(Integer.parseInt(args.get(0)), args.get(1), args.get(2), args.get(3));
            case "wait-remote": need(args, 3, "wait-remote TOPIC-PARTITION STATE MIN_COUNT");
                return waitRemote(tp(args.get(0)), args.get(1), Integer.parseInt(args.get(2)));
            case "delete-remote": need(args, 2, "delete-remote TOPIC-PARTITION all|oldest|newest|SEGMENT_ID [EXT,...]");
                return deleteRemote(tp(args.get(0)), args.get(1), args.size() > 2 ? args.get(2) : null);
            case "alter-topic": need(args, 2, "alter-topic TOPIC K=V..."); return alterTopic(args.get(0), args.subList(1, args.size()));
            case "fetch": need(args, 2, "fetch TOPIC-PARTITION OFFSET [TIMEOUT_MS]");
                return fetch(tp(args.get(0)), Long.parseLong(args.get(1)), args.size() > 2 ? Long.parseLong(args.get(2)) : 15000);
            case "capture": need(args, 1, "capture DIR"); return capture(Paths.get(args.get(0)));
            default: return Json.obj("ok", false, "error", "unknown command " + c);
        }
    }

    static void need(List<String> args, int n, String usage) {
        if (args.size() < n) throw new IllegalArgumentException("usage: " + usage);
    }

    /** "topic-partition", parsed from the right (a topic name may contain '-'). */
    static TopicPartition tp(String s) {
        int d = s.lastIndexOf('-');
        if (d <= 0) throw new IllegalArgumentException("want TOPIC-PARTITION, got " + s);
        return new TopicPartition(s.substring(0, d), Integer.parseInt(s.substring(d + 1)));
    }

    static String name(TopicPartition tp) {
        return tp.topic() + "-" + tp.partition();
    }

    // ---- setup ----

    void setup(int rounds) throws Exception {
        int n = cl.nodes.size();
        try (Admin a = cl.admin()) {
            List<NewTopic> nts = new ArrayList<>();
            for (TopicSpec t : topics) {
                Map<String, String> cfg = new TreeMap<>();
                cfg.put("segment.ms", Long.toString(ROLL / 2));
                cfg.put("retention.ms", "-1");
                cfg.put("remote.storage.enable", "true");
                cfg.put("local.retention.ms", "-2");
                cfg.putAll(t.config);
                // Partition p on nodes p+1, p+2, ... (mod n): every node leads some partition of each topic.
                Map<Integer, List<Integer>> asg = new LinkedHashMap<>();
                for (int p = 0; p < t.partitions; p++) {
                    List<Integer> r = new ArrayList<>();
                    for (int i = 0; i < t.rf; i++) r.add(cl.nodes.get((p + i) % n).nodeId);
                    asg.put(p, r);
                }
                nts.add(new NewTopic(t.name, asg).configs(cfg));
                t.config.clear();
                t.config.putAll(cfg);
            }
            a.createTopics(nts).all().get(timeoutMs, TimeUnit.MILLISECONDS);
            Set<String> names = new HashSet<>();
            for (TopicSpec t : topics) names.add(t.name);
            waitUntil("every scenario partition led and fully in sync", () -> allInSync(a, names));
            for (Map.Entry<String, TopicDescription> e : a.describeTopics(names).allTopicNames()
                    .get(30, TimeUnit.SECONDS).entrySet()) {
                topicIds.put(e.getKey(), e.getValue().topicId());
            }
        }
        if (rounds > 0) {
            produce("*", rounds);
            if (rounds > 1) waitCopied("*");
        }
    }

    static TopicPartitionInfo partitionInfo(TopicDescription td, TopicPartition tp) {
        for (TopicPartitionInfo pi : td.partitions()) if (pi.partition() == tp.partition()) return pi;
        throw new IllegalArgumentException("no partition " + tp);
    }

    static boolean allInSync(Admin a, Set<String> names) throws Exception {
        for (TopicDescription td : a.describeTopics(names).allTopicNames().get(10, TimeUnit.SECONDS).values()) {
            for (TopicPartitionInfo pi : td.partitions()) {
                if (pi.leader() == null || pi.leader().isEmpty() || pi.isr().size() != pi.replicas().size()) return false;
            }
        }
        return true;
    }

    List<TopicSpec> select(String which) {
        List<TopicSpec> r = new ArrayList<>();
        for (TopicSpec t : topics) if (which.equals("*") || which.equals("all") || t.name.equals(which)) r.add(t);
        if (r.isEmpty()) throw new IllegalArgumentException("no scenario topic " + which);
        return r;
    }

    List<TopicPartition> partitions(String which) {
        List<TopicPartition> r = new ArrayList<>();
        for (TopicSpec t : select(which)) for (int p = 0; p < t.partitions; p++) r.add(new TopicPartition(t.name, p));
        return r;
    }

    Map<String, Object> hello() throws Exception {
        List<Object> nodes = new ArrayList<>();
        for (Broker b : cl.nodes) {
            nodes.add(Json.obj("id", b.nodeId, "log_dir", b.logDir.toAbsolutePath().toString(),
                    "metadata_dir", b.opts.separateMetadataDir ? b.metaDir.toAbsolutePath().toString()
                            : b.logDir.toAbsolutePath().toString(),
                    "server_properties", b.props.toAbsolutePath().toString(),
                    "server_log", b.work.resolve("server.log").toAbsolutePath().toString(),
                    "bootstrap", b.bootstrap(), "jmx_port", b.jmxPort, "metrics_url", b.metricsUrl(),
                    "running", b.running()));
        }
        List<Object> ts = new ArrayList<>();
        for (TopicSpec t : topics) {
            ts.add(Json.obj("name", t.name, "partitions", t.partitions, "replication_factor", t.rf,
                    "topic_id", String.valueOf(topicIds.get(t.name)), "config", new TreeMap<String, Object>(t.config)));
        }
        Object version = null;   // the running broker's own release (its app-info MBean)
        for (Broker b : cl.nodes) {
            if (b.running()) {
                version = b.appInfo().get("Version");
                break;
            }
        }
        return Json.obj("ok", true, "kafka_version", version, "cluster_id", cl.clusterId,
                "bootstrap", cl.bootstrap(), "rsm", rsm, "remote_dir", remoteDir.toAbsolutePath().toString(),
                "remote_store", storeRoot().toAbsolutePath().toString(),
                "stall_dir", stallDir == null ? null : stallDir.toAbsolutePath().toString(),
                "rlmm_partitions", Broker.RLMM_PARTITIONS, "round", round, "nodes", nodes, "topics", ts);
    }

    /** Where the RSM keeps partition directories: LocalTieredStorage adds kafka-tiered-storage/. */
    Path storeRoot() {
        return rsm.equals(Broker.RSM_LOCAL_TIERED_STORAGE) ? remoteDir.resolve("kafka-tiered-storage") : remoteDir;
    }

    // ---- produce / copy ----

    Map<String, Object> produce(String which, int rounds) throws Exception {
        List<TopicPartition> tps = partitions(which);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cl.bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(timeoutMs));
        try (KafkaProducer<byte[], byte[]> pr = new KafkaProducer<>(p)) {
            for (int r = 0; r < rounds; r++) {
                Map<TopicPartition, Long> before = offsets(tps, OffsetSpec.latest());
                long ts = t0 + (long) round * ROLL;
                for (TopicPartition tp : tps) {
                    // Two batches of 5 records, 1 s apart in record time: one segment per round.
                    for (int b = 0; b < 2; b++) {
                        for (int i = 0; i < 5; i++) {
                            byte[] v = (name(tp) + "-" + round + "-" + b + "-" + i).getBytes(StandardCharsets.UTF_8);
                            pr.send(new ProducerRecord<>(tp.topic(), tp.partition(), ts + b * 1000L + i, null, v));
                        }
                        pr.flush();
                    }
                    // This round's first batch rolled the active segment: everything before it is closed.
                    closedEnd.put(tp, before.get(tp) - 1);
                }
                round++;
            }
        }
        Map<String, Object> leo = new TreeMap<>();
        for (Map.Entry<TopicPartition, Long> e : offsets(tps, OffsetSpec.latest()).entrySet()) leo.put(name(e.getKey()), e.getValue());
        return Json.obj("ok", true, "round", round, "log_end_offsets", leo);
    }

    /** "1700000000000", "now+1800000" or "now-86400000": a record timestamp, relative ones from this JVM's clock. */
    static long timestamp(String s) {
        if (s.startsWith("now+")) return System.currentTimeMillis() + Long.parseLong(s.substring(4));
        if (s.startsWith("now-")) return System.currentTimeMillis() - Long.parseLong(s.substring(4));
        return Long.parseLong(s);
    }

    /**
     * COUNT records of VALUE_BYTES each into one partition, one batch per record (each is
     * flushed before the next), CreateTime ts, ts + step, ...: segments then roll where Kafka's
     * own rules put them (with a large segment.ms, by segment.bytes), and a single record can
     * carry a timestamp of its own (after the broker's clock, say) without rolling a segment.
     * Answers the first and last offsets Kafka assigned and the timestamps used.
     */
    Map<String, Object> append(TopicPartition tp, int count, int bytes, long ts, long step) throws Exception {
        if (count < 1 || bytes < 0 || bytes > 900_000) throw new IllegalArgumentException("append: COUNT >= 1, 0 <= VALUE_BYTES <= 900000");
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cl.bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(timeoutMs));
        long first = -1;
        long last = -1;
        try (KafkaProducer<byte[], byte[]> pr = new KafkaProducer<>(p)) {
            for (int i = 0; i < count; i++) {
                byte[] v = new byte[bytes];
                Arrays.fill(v, (byte) ('a' + i % 26));
                var md = pr.send(new ProducerRecord<>(tp.topic(), tp.partition(), ts + i * step, null, v))
                        .get(timeoutMs, TimeUnit.MILLISECONDS);
                if (first < 0) first = md.offset();
                last = md.offset();
            }
        }
        return Json.obj("ok", true, "partition", name(tp), "first_offset", first, "last_offset", last,
                "first_ts", ts, "last_ts", ts + (count - 1) * step);
    }

    /** Until ListOffsets LATEST_TIERED of the partition is at least offset (bounded by --timeout-ms). */
    Map<String, Object> waitTiered(TopicPartition tp, long offset) throws Exception {
        waitUntil("LATEST_TIERED of " + tp + " >= " + offset, () -> offsets(List.of(tp), OffsetSpec.latestTiered()).get(tp) >= offset);
        return Json.obj("ok", true, "partition", name(tp), "latest_tiered", offsets(List.of(tp), OffsetSpec.latestTiered()).get(tp));
    }

    /** Until LATEST_TIERED covers every closed segment of the topic(s) (bounded by --timeout-ms). */
    Map<String, Object> waitCopied(String which) throws Exception {
        List<TopicPartition> tps = partitions(which);
        waitUntil("every closed segment of " + which + " copied (LATEST_TIERED >= last closed offset)", () -> {
            Map<TopicPartition, Long> lt = offsets(tps, OffsetSpec.latestTiered());
            for (TopicPartition tp : tps) if (lt.get(tp) < closedEnd.getOrDefault(tp, -1L)) return false;
            return true;
        });
        Map<String, Object> r = new TreeMap<>();
        for (Map.Entry<TopicPartition, Long> e : offsets(tps, OffsetSpec.latestTiered()).entrySet()) r.put(name(e.getKey()), e.getValue());
        return Json.obj("ok", true, "latest_tiered", r);
    }

    Map<TopicPartition, Long> offsets(Collection<TopicPartition> tps, OffsetSpec spec) throws Exception {
        Map<TopicPartition, OffsetSpec> q = new LinkedHashMap<>();
        for (TopicPartition tp : tps) q.put(tp, spec);
        Map<TopicPartition, Long> out = new LinkedHashMap<>();
        try (Admin a = cl.admin()) {
            var r = a.listOffsets(q).all().get(30, TimeUnit.SECONDS);
            for (TopicPartition tp : tps) out.put(tp, r.get(tp).offset());
        }
        return out;
    }

    // ---- Kafka's view ----

    /** Every event of __remote_log_metadata (RemoteLogMetadataSerde), in offset order per metadata partition. */
    List<Map<String, Object>> readRemoteLogMetadata() throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cl.bootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        RemoteLogMetadataSerde serde = new RemoteLogMetadataSerde();
        List<Map<String, Object>> events = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < Broker.RLMM_PARTITIONS; i++) tps.add(new TopicPartition(RLMM, i));
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (true) {
                boolean done = true;
                for (TopicPartition tp : tps) if (c.position(tp, Duration.ofSeconds(30)) < end.get(tp)) done = false;
                if (done) break;
                if (System.currentTimeMillis() > deadline) throw new IOException(RLMM + " not read within " + timeoutMs + " ms");
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    if (r.offset() >= end.get(new TopicPartition(r.topic(), r.partition())) || r.value() == null) continue;
                    Map<String, Object> ev = Capture.event(serde.deserialize(r.value()));
                    ev.put("metadata_partition", r.partition());
                    ev.put("metadata_offset", r.offset());
                    events.add(ev);
                }
            }
        }
        return events;
    }

    /** Per "topic-partition": segment id -> the segment with its latest state (events replayed in order). */
    static Map<String, Map<String, Map<String, Object>>> replay(List<Map<String, Object>> events) {
        Map<String, Map<String, Map<String, Object>>> out = new TreeMap<>();
        for (Map<String, Object> ev : events) {
            String key = ev.get("topic") + "-" + ev.get("partition");
            Map<String, Map<String, Object>> segs = out.computeIfAbsent(key, k -> new LinkedHashMap<>());
            String type = String.valueOf(ev.get("type"));
            if (type.equals("segment")) {
                Map<String, Object> s = new LinkedHashMap<>();
                for (String f : new String[] {"segment_id", "start_offset", "end_offset", "size_bytes", "broker_id",
                                              "max_timestamp_ms", "leader_epochs", "state"}) {
                    s.put(f, ev.get(f));
                }
                s.put("started_ms", ev.get("event_timestamp_ms"));
                s.put("state_ms", ev.get("event_timestamp_ms"));
                s.put("state_broker_id", ev.get("broker_id"));
                segs.put(String.valueOf(ev.get("segment_id")), s);
            } else if (type.equals("update")) {
                Map<String, Object> s = segs.get(String.valueOf(ev.get("segment_id")));
                if (s == null) continue;   // an update for a segment never added: RLMM ignores it too
                s.put("state", ev.get("state"));
                s.put("state_ms", ev.get("event_timestamp_ms"));
                s.put("state_broker_id", ev.get("broker_id"));
            }
        }
        return out;
    }

    Map<String, Object> state(String which) throws Exception {
        List<TopicPartition> tps = partitions(which);
        Set<String> names = new HashSet<>();
        for (TopicPartition tp : tps) names.add(tp.topic());
        Map<String, TopicDescription> d;
        try (Admin a = cl.admin()) {
            d = a.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
        }
        Map<TopicPartition, Long> earliest = offsets(tps, OffsetSpec.earliest());
        Map<TopicPartition, Long> earliestLocal = offsets(tps, OffsetSpec.earliestLocal());
        Map<TopicPartition, Long> latest = offsets(tps, OffsetSpec.latest());
        Map<TopicPartition, Long> tiered = offsets(tps, OffsetSpec.latestTiered());
        List<Map<String, Object>> events = readRemoteLogMetadata();
        Map<String, Map<String, Map<String, Object>>> segs = replay(events);
        RemoteLogMetadataTopicPartitioner part = new RemoteLogMetadataTopicPartitioner(Broker.RLMM_PARTITIONS);
        List<Object> parts = new ArrayList<>();
        for (TopicPartition tp : tps) {
            TopicDescription td = d.get(tp.topic());
            TopicPartitionInfo pi = partitionInfo(td, tp);
            List<Integer> reps = new ArrayList<>();
            for (org.apache.kafka.common.Node nd : pi.replicas()) reps.add(nd.id());
            List<Integer> isr = new ArrayList<>();
            for (org.apache.kafka.common.Node nd : pi.isr()) isr.add(nd.id());
            Map<String, Map<String, Object>> ss = segs.getOrDefault(name(tp), Map.of());
            Map<String, Object> byState = new TreeMap<>();
            long finishedBytes = 0;
            for (Map<String, Object> s : ss.values()) {
                String st = String.valueOf(s.get("state"));
                byState.merge(st, 1L, (x, y) -> (Long) x + (Long) y);
                if (st.equals("COPY_SEGMENT_FINISHED")) finishedBytes += ((Number) s.get("size_bytes")).longValue();
            }
            parts.add(Json.obj("topic", tp.topic(), "partition", tp.partition(), "topic_id", td.topicId().toString(),
                    "replicas", reps, "isr", isr,
                    "leader", pi.leader() == null || pi.leader().isEmpty() ? null : pi.leader().id(),
                    "metadata_partition", part.metadataPartition(new TopicIdPartition(td.topicId(), tp)),
                    "earliest", earliest.get(tp), "earliest_local", earliestLocal.get(tp), "latest", latest.get(tp),
                    "latest_tiered", tiered.get(tp), "closed_end", closedEnd.getOrDefault(tp, -1L),
                    "remote_by_state", byState, "remote_finished_bytes", finishedBytes,
                    "remote_segments", new ArrayList<Object>(ss.values())));
        }
        return Json.obj("ok", true, "taken_ms", System.currentTimeMillis(), "rlmm_records", events.size(),
                "partitions", parts);
    }

    /**
     * Each running broker's BrokerTopicMetrics Remote* MBeans over JMX: gauges' Value, meters'
     * Count; per topic (tag topic=) and broker-wide (no tag). An MBean not registered is absent.
     */
    Map<String, Object> jmx(int only) throws Exception {
        List<Object> nodes = new ArrayList<>();
        for (Broker b : cl.nodes) {
            if (only != 0 && b.nodeId != only) continue;
            if (!b.running()) {
                nodes.add(Json.obj("node", b.nodeId, "up", false));
                continue;
            }
            Map<String, Object> perTopic = new TreeMap<>();
            Map<String, Object> broker = new TreeMap<>();
            JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + b.jmxPort + "/jmxrmi");
            try (JMXConnector c = JMXConnectorFactory.connect(url, Map.of())) {
                MBeanServerConnection s = c.getMBeanServerConnection();
                for (ObjectName on : s.queryNames(new ObjectName("kafka.server:type=BrokerTopicMetrics,*"), null)) {
                    String nm = on.getKeyProperty("name");
                    if (nm == null || !(nm.startsWith("Remote") || nm.startsWith("BuildRemote"))) continue;
                    Object v;
                    try {
                        v = s.getAttribute(on, nm.endsWith("PerSec") ? "Count" : "Value");
                    } catch (javax.management.InstanceNotFoundException e) {
                        continue;   // unregistered between query and read
                    }
                    String topic = on.getKeyProperty("topic");
                    if (topic == null) broker.put(nm, v);
                    else {
                        @SuppressWarnings("unchecked")
                        Map<String, Object> m = (Map<String, Object>) perTopic.computeIfAbsent(topic, k -> new TreeMap<String, Object>());
                        m.put(nm, v);
                    }
                }
            }
            nodes.add(Json.obj("node", b.nodeId, "up", true, "topics", perTopic, "broker", broker));
        }
        return Json.obj("ok", true, "taken_ms", System.currentTimeMillis(), "nodes", nodes);
    }

    // ---- leadership ----

    Map<String, Object> elect(List<String> args) throws Exception {
        Set<TopicPartition> tps = new HashSet<>();
        if (args.isEmpty()) tps.addAll(partitions("*"));
        else for (String s : args) tps.add(tp(s));
        try (Admin a = cl.admin()) {
            Map<TopicPartition, Optional<Throwable>> r = a.electLeaders(ElectionType.PREFERRED, tps).partitions()
                    .get(30, TimeUnit.SECONDS);
            for (Map.Entry<TopicPartition, Optional<Throwable>> e : r.entrySet()) {
                if (e.getValue().isPresent() && !(e.getValue().get() instanceof ElectionNotNeededException)) {
                    throw new IOException("preferred leader election of " + e.getKey() + ": " + e.getValue().get());
                }
            }
            waitUntil("preferred leaders of " + tps, () -> {
                for (TopicPartition tp : tps) {
                    TopicPartitionInfo pi = partitionInfo(a.describeTopics(List.of(tp.topic())).allTopicNames()
                            .get(10, TimeUnit.SECONDS).get(tp.topic()), tp);
                    if (pi.leader() == null || pi.leader().id() != pi.replicas().get(0).id()) return false;
                }
                return true;
            });
        }
        return leaders(tps);
    }

    Map<String, Object> leaders(Collection<TopicPartition> tps) throws Exception {
        Map<String, Object> r = new TreeMap<>();
        Set<String> names = new HashSet<>();
        for (TopicPartition tp : tps) names.add(tp.topic());
        try (Admin a = cl.admin()) {
            Map<String, TopicDescription> d = a.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
            for (TopicPartition tp : tps) {
                TopicPartitionInfo pi = partitionInfo(d.get(tp.topic()), tp);
                r.put(name(tp), pi.leader() == null || pi.leader().isEmpty() ? null : pi.leader().id());
            }
        }
        return Json.obj("ok", true, "leaders", r);
    }

    /** alterPartitionReassignments to exactly these replicas (in this order); waits until done and in sync. */
    Map<String, Object> reassign(TopicPartition tp, String replicas) throws Exception {
        List<Integer> want = new ArrayList<>();
        for (String s : replicas.split(",")) want.add(Integer.parseInt(s));
        try (Admin a = cl.admin()) {
            a.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(want))))
                    .all().get(30, TimeUnit.SECONDS);
            waitUntil("reassignment of " + tp + " to " + want, () -> {
                if (a.listPartitionReassignments(Set.of(tp)).reassignments().get(10, TimeUnit.SECONDS).containsKey(tp)) return false;
                TopicPartitionInfo pi = partitionInfo(a.describeTopics(List.of(tp.topic())).allTopicNames()
                        .get(10, TimeUnit.SECONDS).get(tp.topic()), tp);
                List<Integer> reps = new ArrayList<>();
                for (org.apache.kafka.common.Node nd : pi.replicas()) reps.add(nd.id());
                return reps.equals(want) && pi.isr().size() == want.size() && pi.leader() != null && !pi.leader().isEmpty();
            });
        }
        return leaders(List.of(tp));
    }

    Map<String, Object> node(String id, String what) throws Exception {
        Broker b = cl.node(Integer.parseInt(id));
        switch (what) {
            case "stop": b.stop(); break;
            case "kill": b.kill(); break;
            default:
                b.launch();
                waitUntil("node " + b.nodeId + " back and in sync on every partition it replicates", () -> {
                    b.checkAlive();
                    try (Admin a = cl.admin()) {
                        Set<String> all = a.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true))
                                .names().get(10, TimeUnit.SECONDS);
                        for (TopicDescription td : a.describeTopics(all).allTopicNames().get(10, TimeUnit.SECONDS).values()) {
                            for (TopicPartitionInfo pi : td.partitions()) {
                                boolean rep = pi.replicas().stream().anyMatch(x -> x.id() == b.nodeId);
                                boolean in = pi.isr().stream().anyMatch(x -> x.id() == b.nodeId);
                                if (rep && (!in || pi.leader() == null || pi.leader().isEmpty())) return false;
                            }
                        }
                    }
                    return true;
                });
        }
        return Json.obj("ok", true, "node", b.nodeId, "running", b.running());
    }

    // ---- stalled copies ----

    Map<String, Object> stall(List<String> args) throws Exception {
        if (stallDir == null) throw new IllegalStateException("started with --no-stall");
        StringBuilder sb = new StringBuilder();
        for (String s : args) {
            if (!s.startsWith("point=") && !s.startsWith("partition=")) {
                throw new IllegalArgumentException("stall takes point=before-log|after-log and partition=TOPIC-PARTITION, got " + s);
            }
            if (s.equals("point=after-log") && !rsm.equals(Broker.RSM_LOCAL_TIERED_STORAGE)) {
                throw new IllegalArgumentException("point=after-log needs LocalTieredStorage (LocalDirRsm writes the .log last)");
            }
            sb.append(s).append('\n');
        }
        Path tmp = stallDir.resolve("stall.tmp");
        Files.write(tmp, sb.toString().getBytes(StandardCharsets.UTF_8));
        Files.move(tmp, stallDir.resolve("stall"), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return Json.obj("ok", true, "stall", sb.toString().trim());
    }

    List<Object> stalled() throws IOException {
        List<Object> r = new ArrayList<>();
        Path d = stallDir.resolve("stalled");
        if (!Files.isDirectory(d)) return r;
        try (Stream<Path> s = Files.list(d)) {
            for (Path p : (Iterable<Path>) s.sorted()::iterator) {
                try {
                    r.add(Files.readString(p));
                } catch (java.nio.file.NoSuchFileException e) {
                    // released meanwhile
                }
            }
        }
        return r;
    }

    Map<String, Object> waitStalled(int n) throws Exception {
        if (stallDir == null) throw new IllegalStateException("started with --no-stall");
        waitUntil(n + " copies held by the stall", () -> stalled().size() >= n);
        return Json.obj("ok", true, "stalled", stalled());
    }

    Map<String, Object> release() throws Exception {
        if (stallDir == null) throw new IllegalStateException("started with --no-stall");
        Files.deleteIfExists(stallDir.resolve("stall"));
        waitUntil("every held copy to go on", () -> stalled().isEmpty());
        return Json.obj("ok", true);
    }

    // ---- held deletes (--delete-stall: lts.DeleteStallingLts) ----

    /** stall-delete NODE [partition=TOPIC-PARTITION]...: hold that broker's deletes (Stall.maybeStallDelete). */
    Map<String, Object> stallDelete(List<String> args) throws Exception {
        if (stallDir == null) throw new IllegalStateException("started with --no-stall");
        need(args, 1, "stall-delete NODE [partition=TOPIC-PARTITION]...");
        int node = cl.node(Integer.parseInt(args.get(0))).nodeId;
        StringBuilder sb = new StringBuilder();
        for (String s : args.subList(1, args.size())) {
            if (!s.startsWith("partition=")) throw new IllegalArgumentException("stall-delete NODE partition=TOPIC-PARTITION..., got " + s);
            sb.append(s).append('\n');
        }
        Path tmp = stallDir.resolve("stall-delete.tmp");
        Files.write(tmp, sb.toString().getBytes(StandardCharsets.UTF_8));
        Files.move(tmp, stallDir.resolve("stall-delete." + node), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return Json.obj("ok", true, "node", node, "stall_delete", sb.toString().trim());
    }

    /** The files of a Stall directory (stalled-delete, interrupted-delete, released-delete): name -> content. */
    Map<String, Object> stallFiles(String sub) throws IOException {
        Map<String, Object> r = new TreeMap<>();
        Path d = stallDir.resolve(sub);
        if (!Files.isDirectory(d)) return r;
        try (Stream<Path> s = Files.list(d)) {
            for (Path p : (Iterable<Path>) s.sorted()::iterator) {
                try {
                    r.put(p.getFileName().toString(), Files.readString(p));
                } catch (java.nio.file.NoSuchFileException e) {
                    // released meanwhile
                }
            }
        }
        return r;
    }

    /** The held deletes of one node (Stall names them NODE-SEGMENT_ID). */
    Map<String, Object> nodeFiles(String sub, int node) throws IOException {
        Map<String, Object> r = new TreeMap<>();
        for (Map.Entry<String, Object> e : stallFiles(sub).entrySet()) {
            if (e.getKey().startsWith(node + "-")) r.put(e.getKey().substring(e.getKey().indexOf('-') + 1), e.getValue());
        }
        return r;
    }

    /** wait-delete-stalled NODE [N]: until N (default 1) of that node's deletes are held. */
    Map<String, Object> waitDeleteStalled(List<String> args) throws Exception {
        if (stallDir == null) throw new IllegalStateException("started with --no-stall");
        need(args, 1, "wait-delete-stalled NODE [N]");
        int node = Integer.parseInt(args.get(0));
        int n = args.size() > 1 ? Integer.parseInt(args.get(1)) : 1;
        waitUntil(n + " deletes of node " + node + " held by the stall", () -> nodeFiles("stalled-delete", node).size() >= n);
        return Json.obj("ok", true, "node", node, "stalled", nodeFiles("stalled-delete", node));
    }

    /**
     * release-delete NODE: that node's held deletes go on; answers once each has, with the
     * segment ids Kafka interrupted while held.
     */
    Map<String, Object> releaseDelete(List<String> args) throws Exception {
        if (stallDir == null) throw new IllegalStateException("started with --no-stall");
        need(args, 1, "release-delete NODE");
        int node = Integer.parseInt(args.get(0));
        Set<String> held = new HashSet<>(nodeFiles("stalled-delete", node).keySet());
        Files.deleteIfExists(stallDir.resolve("stall-delete." + node));
        waitUntil("every held delete of node " + node + " to go on", () -> nodeFiles("stalled-delete", node).isEmpty()
                && nodeFiles("released-delete", node).keySet().containsAll(held));
        return Json.obj("ok", true, "node", node, "released", new ArrayList<Object>(held),
                "interrupted", new ArrayList<Object>(nodeFiles("interrupted-delete", node).keySet()));
    }

    /** One per-topic BrokerTopicMetrics gauge of one node over JMX; null: not registered. */
    Long gaugeValue(Broker b, String topic, String name) throws Exception {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + b.jmxPort + "/jmxrmi");
        try (JMXConnector c = JMXConnectorFactory.connect(url, Map.of())) {
            ObjectName on = new ObjectName("kafka.server:type=BrokerTopicMetrics,name=" + name + ",topic=" + topic);   // Kafka's topic names need no quoting
            try {
                return ((Number) c.getMBeanServerConnection().getAttribute(on, "Value")).longValue();
            } catch (javax.management.InstanceNotFoundException e) {
                return null;
            }
        }
    }

    /**
     * Until node's gauge NAME for TOPIC (JMX, kafka.server:type=BrokerTopicMetrics) is present,
     * absent, zero (0 or absent), =V, !=V or >V (bounded by --timeout-ms); answers its value then. A timeout's error
     * names the last value read.
     */
    Map<String, Object> gauge(int node, String topic, String name, String cond) throws Exception {
        if (!cond.matches("present|absent|zero|!?=-?\\d+|>-?\\d+")) {
            throw new IllegalArgumentException("gauge condition present|absent|zero|=V|!=V|>V, got " + cond);
        }
        Broker b = cl.node(node);
        final Object[] last = {"never read"};
        Callable<Boolean> ok = () -> {
            Long v = gaugeValue(b, topic, name);
            last[0] = v;
            if (cond.equals("present")) return v != null;
            if (cond.equals("absent")) return v == null;
            if (cond.equals("zero")) return v == null || v == 0;
            if (v == null) return false;
            if (cond.startsWith("!=")) return v != Long.parseLong(cond.substring(2));
            if (cond.startsWith("=")) return v == Long.parseLong(cond.substring(1));
            return v > Long.parseLong(cond.substring(1));
        };
        try {
            waitUntil("node " + node + "'s " + name + "{topic=" + topic + "} " + cond, ok);
        } catch (IOException e) {
            throw new IOException(e.getMessage() + "; last value read: " + last[0]);
        }
        return Json.obj("ok", true, "node", node, "topic", topic, "name", name, "value", last[0]);
    }

    Map<String, Object> waitRemote(TopicPartition tp, String state, int min) throws Exception {
        final long[] have = {0};
        waitUntil(min + " segments of " + tp + " in state " + state, () -> {
            Map<String, Map<String, Object>> ss = replay(readRemoteLogMetadata()).getOrDefault(name(tp), Map.of());
            have[0] = ss.values().stream().filter(s -> state.equals(s.get("state"))).count();
            return have[0] >= min;
        });
        return Json.obj("ok", true, "partition", name(tp), "state", state, "count", have[0]);
    }

    // ---- the store behind Kafka's back ----

    /** The partition's directory in the RSM's store. */
    Path partitionDir(TopicPartition tp) {
        if (rsm.equals(Broker.RSM_LOCAL_TIERED_STORAGE)) {
            return storeRoot().resolve(name(tp) + "-" + topicIds.get(tp.topic()));
        }
        return storeRoot().resolve(name(tp));
    }

    /**
     * Deletes remote files as an operator's lifecycle rule or a bucket accident would: every file
     * (or only the extensions given, e.g. "log" or "log,index") of the chosen segments. which:
     * all, oldest, newest, or a segment id.
     */
    Map<String, Object> deleteRemote(TopicPartition tp, String which, String exts) throws Exception {
        Path dir = partitionDir(tp);
        TreeMap<String, List<Path>> bySeg = new TreeMap<>();   // "<offset %020d>-<id>" -> files
        if (Files.isDirectory(dir)) {
            try (Stream<Path> s = Files.list(dir)) {
                for (Path f : (Iterable<Path>) s::iterator) {
                    String n = f.getFileName().toString();
                    int dot = n.indexOf('.');
                    if (dot < 0 || n.endsWith(".tmp")) continue;
                    bySeg.computeIfAbsent(n.substring(0, dot), k -> new ArrayList<>()).add(f);
                }
            }
        }
        List<String> chosen = new ArrayList<>();
        if (which.equals("all")) chosen.addAll(bySeg.keySet());
        else if (which.equals("oldest") && !bySeg.isEmpty()) chosen.add(bySeg.firstKey());
        else if (which.equals("newest") && !bySeg.isEmpty()) chosen.add(bySeg.lastKey());
        else for (String k : bySeg.keySet()) if (k.endsWith("-" + which)) chosen.add(k);
        if (chosen.isEmpty()) throw new IOException("no remote segment " + which + " of " + tp + " in " + dir);
        Set<String> only = exts == null ? null : new HashSet<>(Arrays.asList(exts.split(",")));
        List<Object> deleted = new ArrayList<>();
        List<Object> ids = new ArrayList<>();
        for (String k : chosen) {
            ids.add(k.substring(21));
            for (Path f : bySeg.get(k)) {
                String n = f.getFileName().toString();
                if (only != null && !only.contains(n.substring(n.indexOf('.') + 1))) continue;
                Files.delete(f);
                deleted.add(remoteDir.relativize(f).toString());
            }
        }
        return Json.obj("ok", true, "segment_ids", ids, "deleted", deleted);
    }

    Map<String, Object> alterTopic(String topic, List<String> kvs) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>();
        for (String kv : kvs) {
            int eq = kv.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("alter-topic wants K=V (K= deletes), got " + kv);
            String k = kv.substring(0, eq);
            String v = kv.substring(eq + 1);
            ops.add(v.isEmpty() ? new AlterConfigOp(new ConfigEntry(k, null), AlterConfigOp.OpType.DELETE)
                    : new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET));
        }
        try (Admin a = cl.admin()) {
            a.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), ops))
                    .all().get(30, TimeUnit.SECONDS);
        }
        return Json.obj("ok", true, "topic", topic, "altered", kvs);
    }

    /**
     * Kafka's consumer reading from offset (for remote offsets: the broker fetches from the RSM).
     * Answers what it got within the bound: records and offsets, and the consumer's exception.
     */
    Map<String, Object> fetch(TopicPartition tp, long offset, long boundMs) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cl.bootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        long n = 0;
        long first = -1;
        long last = -1;
        String error = null;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.assign(List.of(tp));
            c.seek(tp, offset);
            long deadline = System.currentTimeMillis() + boundMs;
            while (n == 0 && System.currentTimeMillis() < deadline) {
                try {
                    for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                        if (first < 0) first = r.offset();
                        last = r.offset();
                        n++;
                    }
                } catch (org.apache.kafka.common.KafkaException e) {
                    error = e.toString();
                    break;
                }
            }
        }
        return Json.obj("ok", true, "partition", name(tp), "from", offset, "records", n, "first_offset", first,
                "last_offset", last, "error", error, "bound_ms", boundMs);
    }

    /**
     * A copy of every node's log dir (and separate metadata dir) and of the RSM's store, taken while
     * the cluster runs (mtimes kept), with Kafka's view at that moment: DIR/node-N/logdir,
     * DIR/node-N/metadata, DIR/remote, DIR/state.json, DIR/jmx.json, DIR/remote-state.ndjson (the
     * contract's --remote-state format, events in metadata-partition offset order).
     */
    Map<String, Object> capture(Path dir) throws Exception {
        Files.createDirectories(dir);
        Map<String, Object> st = state("*");
        List<Object> nodes = new ArrayList<>();
        for (Broker b : cl.nodes) {
            Path nd = dir.resolve("node-" + b.nodeId);
            Capture.copyTree(b.logDir, nd.resolve("logdir"));
            if (b.opts.separateMetadataDir && Files.isDirectory(b.metaDir)) Capture.copyTree(b.metaDir, nd.resolve("metadata"));
            nodes.add(Json.obj("id", b.nodeId, "log_dir", nd.resolve("logdir").toAbsolutePath().toString()));
        }
        if (Files.isDirectory(remoteDir)) Capture.copyTree(remoteDir, dir.resolve("remote"));
        Json.write(dir.resolve("state.json"), st);
        Json.write(dir.resolve("jmx.json"), jmx(0));
        List<Map<String, Object>> events = readRemoteLogMetadata();
        Files.writeString(dir.resolve("remote-state.ndjson"), Capture.remoteStateNdjson(events));
        return Json.obj("ok", true, "dir", dir.toAbsolutePath().toString(), "nodes", nodes,
                "remote", dir.resolve("remote").toAbsolutePath().toString(), "rlmm_records", events.size());
    }

    void waitUntil(String what, Callable<Boolean> cond) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        Exception last = null;
        while (System.currentTimeMillis() < deadline) {
            try {
                if (Boolean.TRUE.equals(cond.call())) return;
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(250);
        }
        throw new IOException("timed out after " + timeoutMs + " ms waiting for " + what
                + (last == null ? "" : " (last error: " + last + ")"));
    }
}
