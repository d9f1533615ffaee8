package segscan.oracle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.admin.Admin;

/**
 * The conformance oracle's entry point. For each case: format a fresh KRaft node, start it,
 * run the case's workload, read Kafka's view (JMX, Admin API), optionally copy the log dir while
 * the broker runs, stop the broker cleanly, copy the log dir, and record DumpLogSegments' and
 * RemoteLogMetadataSerde's reading of the copy.
 *
 * <pre>
 * java -cp CLASSPATH segscan.oracle.Oracle --out DIR [--cases a,b] [--timeout-ms 60000]
 * </pre>
 *
 * Output per case: DIR/cases/CASE/{logdir/, remote/, dump.json, remote-metadata.json,
 * remote-state.ndjson, jmx.json, admin.json, topic-config.txt, manifest.json, case.json} and the
 * broker's own files under DIR/work/CASE/. A live copy goes to DIR/cases/CASE-live/.
 * Cluster-context cases (Case.clusterContext) add cluster.json, cluster-metadata.json and
 * server.properties; several-node cases (Case.nodes > 1, {@link #runClusterCase}) write
 * logdir-N/, dump-N.json, jmx-N.json and server-N.properties per node instead of the single ones.
 */
public final class Oracle {
    private Oracle() {
    }

    /**
     * The kafka-clients jar's own version file. Read directly because AppInfoParser moved
     * between 4.3 and 4.4 (utils to utils.internals) and this harness builds against both.
     */
    static final java.util.Properties KAFKA_VERSION = new java.util.Properties();

    static {
        try (java.io.InputStream in = org.apache.kafka.clients.admin.Admin.class
                .getResourceAsStream("/kafka/kafka-version.properties")) {
            if (in != null) KAFKA_VERSION.load(in);
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The broker of the case in progress, for the shutdown hook; null between cases. */
    private static volatile Broker current;

    static void log(String s) {
        System.out.println("[oracle " + Instant.now() + "] " + s);
        System.out.flush();
    }

    static final class Args {
        Path out;
        List<String> cases = new ArrayList<>();
        long timeoutMs = 60_000;
        String suffix = "";
        /** Skip the live copies (second-release runs: the live shape does not depend on the release). */
        boolean noLive;
    }

    private static Args parse(String[] argv) {
        Args a = new Args();
        for (int i = 0; i < argv.length; i++) {
            String k = argv[i];
            String v = i + 1 < argv.length ? argv[i + 1] : null;
            switch (k) {
                case "--out": a.out = Paths.get(need(k, v)); i++; break;
                case "--cases": for (String c : need(k, v).split(",")) if (!c.isBlank()) a.cases.add(c.trim()); i++; break;
                case "--timeout-ms": a.timeoutMs = Long.parseLong(need(k, v)); i++; break;
                case "--name-suffix": a.suffix = need(k, v); i++; break;
                case "--no-live": a.noLive = true; break;
                default: throw new IllegalArgumentException("unknown argument " + k);
            }
        }
        if (a.out == null) throw new IllegalArgumentException("--out DIR is required");
        if (a.cases.isEmpty()) a.cases.addAll(Workloads.ALL.keySet());
        return a;
    }

    private static String need(String k, String v) {
        if (v == null) throw new IllegalArgumentException(k + " needs a value");
        return v;
    }

    public static void main(String[] argv) {
        Args a;
        try {
            a = parse(argv);
        } catch (IllegalArgumentException e) {
            System.err.println("kafka-oracle: " + e.getMessage());
            System.err.println("usage: Oracle --out DIR [--cases " + String.join(",", Workloads.ALL.keySet())
                    + "] [--timeout-ms MS] [--name-suffix S]");
            System.exit(2);
            return;
        }
        // run.sh's timeout sends SIGTERM to this JVM only; without this hook a broker child
        // would outlive it and keep its ports and files.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Broker b = current;
            if (b != null) b.close();
        }, "oracle-broker-reaper"));
        int failed = 0;
        for (String name : a.cases) {
            Workloads.Case c = Workloads.ALL.get(name);
            if (c == null) {
                System.err.println("kafka-oracle: unknown case " + name);
                System.exit(2);
            }
            try {
                if (c.nodes > 1) runClusterCase(a, name + a.suffix, c);
                else runCase(a, name + a.suffix, c);
            } catch (Throwable t) {
                failed++;
                System.err.println("kafka-oracle: case " + name + " FAILED: " + t);
                t.printStackTrace();
            }
        }
        log(a.cases.size() - failed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    static void runCase(Args a, String name, Workloads.Case c) throws Exception {
        Path work = a.out.resolve("work").resolve(name);
        Path dst = a.out.resolve("cases").resolve(name);
        Capture.deleteTree(work);
        Capture.deleteTree(dst);
        Capture.deleteTree(a.out.resolve("cases").resolve(name + "-live"));
        Files.createDirectories(work);
        log("case " + name + ": " + c.description);
        try (Broker b = new Broker(work, a.timeoutMs, c.options())) {
            current = b;
            Workloads.Ctx ctx = new Workloads.Ctx(b, a.timeoutMs);
            b.format();
            b.start();
            ctx.event("broker started", Json.obj());
            c.run(ctx);
            // Let one more round of the copy/expiration tasks publish its gauges.
            Thread.sleep(3 * Broker.TASK_INTERVAL_MS);

            if (c.live && !a.noLive) {
                Path live = a.out.resolve("cases").resolve(name + "-live");
                Map<String, Object> view = kafkaView(b, live);
                if (c.clusterContext) clusterJson(List.of(b), live);
                long t0 = System.currentTimeMillis();
                Capture.copyTree(b.logDir, live.resolve("logdir"));
                long t1 = System.currentTimeMillis();
                ctx.event("live copy", Json.obj("started_ms", t0, "finished_ms", t1));
                view.put("capture_time_ms", t1);
                view.put("copy_started_ms", t0);
                finishCapture(b, ctx, c, name + "-live", live, view, true);
            }

            Path staging = work.resolve("staging");
            Files.createDirectories(staging);
            Map<String, Object> view = kafkaView(b, dst);
            if (c.clusterContext) clusterJson(List.of(b), dst);
            long stopAt = System.currentTimeMillis();
            b.stop();
            ctx.event("broker stopped", Json.obj());
            view.put("capture_time_ms", stopAt);
            Capture.copyTree(b.logDir, dst.resolve("logdir"));
            Capture.copyTree(b.remoteDir, dst.resolve("remote"));
            finishCapture(b, ctx, c, name, dst, view, false);
        } finally {
            current = null;
        }
    }

    /** cluster.json: the Admin API's description of the cluster (see Capture.clusterView). */
    static void clusterJson(List<Broker> brokers, Path dir) throws Exception {
        Files.createDirectories(dir);
        long at = System.currentTimeMillis();
        Map<String, Object> cv;
        try (Admin ad = brokers.get(0).admin()) {
            cv = Capture.clusterView(ad, brokers);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("read_at_ms", at);
        out.putAll(cv);
        Json.write(dir.resolve("cluster.json"), out);
    }

    /**
     * A case on a several-node cluster ({@link Cluster}): run the workload, read JMX of every
     * node, the Admin view of the whole cluster, stop every node cleanly, copy each node's log
     * dir to logdir-N/, and decode all of it: dump-N.json per node, remote-metadata.json over
     * every node's __remote_log_metadata partitions, cluster-metadata.json of node 1's metadata
     * log, and in case.json which metadata partition each user partition maps to and where it is.
     */
    static void runClusterCase(Args a, String name, Workloads.Case c) throws Exception {
        Path work = a.out.resolve("work").resolve(name);
        Path dst = a.out.resolve("cases").resolve(name);
        Capture.deleteTree(work);
        Capture.deleteTree(dst);
        Files.createDirectories(work);
        Files.createDirectories(dst);
        log("case " + name + ": " + c.description);
        Cluster cl = null;
        try {
            cl = Cluster.start(work, a.timeoutMs, c.nodes, c.options().extra);
            current = cl.node(1);
            final Cluster fcl = cl;
            Runtime.getRuntime().addShutdownHook(new Thread(fcl::close, "oracle-cluster-reaper"));
            Workloads.Ctx ctx = new Workloads.Ctx(cl, a.timeoutMs);
            ctx.event("cluster started", Json.obj("nodes", cl.ids()));
            c.run(ctx);
            Thread.sleep(3 * Broker.TASK_INTERVAL_MS);

            Map<String, Object> jt = new TreeMap<>();
            for (Broker b : cl.nodes) {
                jt.put(Integer.toString(b.nodeId), System.currentTimeMillis());
                Json.write(dst.resolve("jmx-" + b.nodeId + ".json"), Json.obj("read_at_ms", jt.get(Integer.toString(b.nodeId)),
                        "source", "JMX remote on 127.0.0.1 of node " + b.nodeId + " (Value for gauges, Count for meters)",
                        "node_id", b.nodeId, "mbeans", b.readJmx()));
            }
            Map<String, Map<String, String>> cfg = new TreeMap<>();
            long at = System.currentTimeMillis();
            Map<String, Object> admin;
            try (Admin ad = cl.admin()) {
                admin = Capture.adminView(ad, cfg, cl.ids());
            }
            admin.put("read_at_ms", at);
            Json.write(dst.resolve("admin.json"), admin);
            clusterJson(cl.nodes, dst);
            Map<String, String> defaults = new TreeMap<>();
            defaults.put("retention.ms", "604800000");
            defaults.put("retention.bytes", "-1");
            defaults.put("local.retention.ms", "-2");
            defaults.put("local.retention.bytes", "-2");
            defaults.put("remote.storage.enable", "false");
            defaults.put("segment.bytes", "1073741824");
            Files.write(dst.resolve("topic-config.txt"),
                    Capture.topicConfigText(cfg, defaults).getBytes(StandardCharsets.UTF_8));
            long stopAt = System.currentTimeMillis();
            cl.stop();
            ctx.event("cluster stopped", Json.obj());

            Map<String, Object> manifest = new TreeMap<>();
            List<Map<String, Object>> events = new ArrayList<>();
            Map<String, Object> nodesDoc = new TreeMap<>();
            for (Broker b : cl.nodes) {
                String ld = "logdir-" + b.nodeId;
                Path logDir = dst.resolve(ld);
                Capture.copyTree(b.logDir, logDir);
                manifest.put(ld, Capture.manifest(logDir));
                log("  capture " + name + ": DumpLogSegments over " + logDir);
                Json.write(dst.resolve("dump-" + b.nodeId + ".json"), Capture.dumpLogDir(logDir));
                Files.write(dst.resolve("server-" + b.nodeId + ".properties"),
                        b.fixtureProperties().getBytes(StandardCharsets.UTF_8));
                for (Map<String, Object> ev : Capture.decodeRemoteMetadata(logDir)) {
                    ev.put("metadata_broker", b.nodeId);
                    events.add(ev);
                }
                Map<String, Object> bc = new TreeMap<>(b.config);
                for (String k : new String[] {"listeners", "advertised.listeners", "controller.quorum.voters", "log.dirs",
                                              "metadata.log.dir", "rsm.config." + LocalDirRsm.DIR_CONFIG}) {
                    bc.remove(k);
                }
                nodesDoc.put(Integer.toString(b.nodeId), Json.obj("process_roles", b.opts.roles, "logdir", ld,
                        "broker_starts", b.starts(), "broker_config", bc));
            }
            Capture.copyTree(cl.remoteDir, dst.resolve("remote"));
            events.sort((x, y) -> {
                int cp = Integer.compare((Integer) x.get("metadata_partition"), (Integer) y.get("metadata_partition"));
                return cp != 0 ? cp : Long.compare((Long) x.get("metadata_offset"), (Long) y.get("metadata_offset"));
            });
            Json.write(dst.resolve("manifest.json"), Json.obj(
                    "note", "size and mtime of every captured file, per node log dir; git does not keep mtimes",
                    "logdirs", manifest));
            Json.write(dst.resolve("remote-metadata.json"), Json.obj(
                    "decoder", "org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde"
                            + " over FileRecords of logdir-N/__remote_log_metadata-P/*.log of every node",
                    "order", "metadata_partition ascending, then metadata_offset ascending",
                    "metadata_topic_partitions", Broker.RLMM_PARTITIONS,
                    "events", events,
                    "remote_store_files", Capture.remoteFiles(dst.resolve("remote"))));
            Files.write(dst.resolve("remote-state.ndjson"),
                    Capture.remoteStateNdjson(events).getBytes(StandardCharsets.UTF_8));
            Json.write(dst.resolve("cluster-metadata.json"),
                    Capture.clusterMetadata(dst.resolve("logdir-1").resolve("__cluster_metadata-0")));

            Map<String, Object> cj = new LinkedHashMap<>();
            cj.put("case", name);
            cj.put("description", c.description);
            cj.put("shows", c.shows);
            cj.put("kafka_version", KAFKA_VERSION.getProperty("version", "unknown"));
            cj.put("kafka_commit", KAFKA_VERSION.getProperty("commitId", "unknown"));
            cj.put("java_version", System.getProperty("java.version"));
            cj.put("live_copy", false);
            cj.put("capture_time_ms", stopAt);
            cj.put("jmx_read_at_ms", jt);
            cj.put("admin_read_at_ms", at);
            cj.put("virtual_time_base_ms", ctx.t0);
            cj.put("cluster_id", cl.clusterId);
            cj.put("node_ids", cl.ids());
            cj.put("nodes", nodesDoc);
            cj.put("placement", ctx.placement);
            cj.put("workload", c.workloadDoc);
            cj.put("timeline", new ArrayList<>(ctx.timeline));
            Json.write(dst.resolve("case.json"), cj);
            log("  capture " + name + " done: " + events.size() + " remote metadata events");
        } finally {
            current = null;
            if (cl != null) cl.close();
        }
    }

    /** JMX + Admin view of the running broker, written into dir; returns case.json fields. */
    static Map<String, Object> kafkaView(Broker b, Path dir) throws Exception {
        Files.createDirectories(dir);
        long jt = System.currentTimeMillis();
        List<Object> jmx = b.readJmx();
        Json.write(dir.resolve("jmx.json"), Json.obj("read_at_ms", jt,
                "source", "JMX remote on 127.0.0.1 (Value for gauges, Count for meters)", "mbeans", jmx));
        Map<String, Map<String, String>> cfg = new TreeMap<>();
        Map<String, Object> admin;
        long at = System.currentTimeMillis();
        try (Admin ad = b.admin()) {
            admin = Capture.adminView(ad, cfg);
        }
        admin.put("read_at_ms", at);
        Json.write(dir.resolve("admin.json"), admin);
        Map<String, String> defaults = new TreeMap<>();
        defaults.put("retention.ms", "604800000");
        defaults.put("retention.bytes", "-1");
        defaults.put("local.retention.ms", "-2");
        defaults.put("local.retention.bytes", "-2");
        defaults.put("remote.storage.enable", "false");
        defaults.put("segment.bytes", "1073741824");
        Files.write(dir.resolve("topic-config.txt"),
                Capture.topicConfigText(cfg, defaults).getBytes(StandardCharsets.UTF_8));
        Map<String, Object> topics = new TreeMap<>();
        for (Map.Entry<String, Map<String, String>> e : cfg.entrySet()) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (String k : Capture.TOPIC_CONFIG_KEYS) m.put(k, e.getValue().get(k));
            for (String k : Capture.TOPIC_CONFIG_EXTRA) if (e.getValue().containsKey(k)) m.put(k, e.getValue().get(k));
            topics.put(e.getKey(), m);
        }
        return Json.obj("jmx_read_at_ms", jt, "admin_read_at_ms", at, "topic_configs", topics);
    }

    static void finishCapture(Broker b, Workloads.Ctx ctx, Workloads.Case c, String name, Path dir,
                              Map<String, Object> view, boolean live) throws Exception {
        Path logDir = dir.resolve("logdir");
        log("  capture " + name + ": DumpLogSegments over " + logDir);
        Json.write(dir.resolve("manifest.json"), Json.obj(
                "note", "size and mtime of every captured file; git does not keep mtimes, and Kafka falls "
                        + "back to a segment's mtime for its largest timestamp when the time index is empty",
                "logdir", Capture.manifest(logDir)));
        Json.write(dir.resolve("dump.json"), Capture.dumpLogDir(logDir));
        if (c.clusterContext) {
            Path md = logDir.resolve("__cluster_metadata-0");
            Json.write(dir.resolve("cluster-metadata.json"), Capture.clusterMetadata(md));
            Files.write(dir.resolve("server.properties"), b.fixtureProperties().getBytes(StandardCharsets.UTF_8));
        }
        List<Map<String, Object>> events = Capture.decodeRemoteMetadata(logDir);
        Json.write(dir.resolve("remote-metadata.json"), Json.obj(
                "decoder", "org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde"
                        + " over FileRecords of logdir/__remote_log_metadata-N/*.log",
                "order", "metadata_partition ascending, then metadata_offset ascending",
                "metadata_topic_partitions", Broker.RLMM_PARTITIONS,
                "events", events,
                "remote_store_files", live ? List.of() : Capture.remoteFiles(dir.resolve("remote"))));
        Files.write(dir.resolve("remote-state.ndjson"),
                Capture.remoteStateNdjson(events).getBytes(StandardCharsets.UTF_8));
        Map<String, Object> cj = new LinkedHashMap<>();
        cj.put("case", name);
        cj.put("description", c.description);
        cj.put("shows", c.shows);
        cj.put("kafka_version", KAFKA_VERSION.getProperty("version", "unknown"));
        cj.put("kafka_commit", KAFKA_VERSION.getProperty("commitId", "unknown"));
        cj.put("java_version", System.getProperty("java.version"));
        cj.put("live_copy", live);
        cj.put("capture_time_ms", view.get("capture_time_ms"));
        if (view.containsKey("copy_started_ms")) cj.put("copy_started_ms", view.get("copy_started_ms"));
        cj.put("jmx_read_at_ms", view.get("jmx_read_at_ms"));
        cj.put("admin_read_at_ms", view.get("admin_read_at_ms"));
        cj.put("virtual_time_base_ms", ctx.t0);
        cj.put("broker_starts", b.starts());
        cj.put("cluster_id", b.clusterId);
        cj.put("node_id", Broker.NODE_ID);
        Map<String, Object> bc = new TreeMap<>(b.config);
        // Ports and absolute paths differ per run and say nothing about the files.
        for (String k : new String[] {"listeners", "advertised.listeners", "controller.quorum.voters", "log.dirs",
                                      "metadata.log.dir",
                                      "rsm.config." + LocalDirRsm.DIR_CONFIG}) {
            bc.remove(k);
        }
        cj.put("broker_config", bc);
        cj.put("topic_configs", view.get("topic_configs"));
        cj.put("workload", c.workloadDoc);
        cj.put("timeline", new ArrayList<>(ctx.timeline));
        Json.write(dir.resolve("case.json"), cj);
        log("  capture " + name + " done: logdir " + Capture.dirBytes(logDir) + " bytes, " + events.size()
                + " remote metadata events");
    }
}
