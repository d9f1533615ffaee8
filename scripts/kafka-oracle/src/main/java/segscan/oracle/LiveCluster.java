package segscan.oracle;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.server.log.remote.metadata.storage.RemoteLogMetadataTopicPartitioner;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;

/**
 * A live 3-node cluster for segscan's live-cluster tests (tests/live_cluster.sh), driven over
 * stdin/stdout: it starts the cluster ({@link Cluster}, every node with a SASL_PLAINTEXT
 * listener too), creates tiered topics spread over the nodes, produces and waits until the
 * brokers copied the rolled segments, then prints one JSON line (bootstrap servers, SASL
 * listener and credentials, every node's log dir and metadata dir) and answers commands, one
 * JSON line each:
 *
 * <pre>
 *   state     per tiered partition: replicas, leader, topic id, its __remote_log_metadata
 *             partition (Kafka's own RemoteLogMetadataTopicPartitioner), ListOffsets LATEST_TIERED,
 *             and the COPY_SEGMENT_FINISHED segment count from RemoteLogMetadataSerde over the
 *             whole topic
 *   produce   one more segment per tiered partition; waits until the previous one is copied
 *   stop      stops every node (SIGTERM, clean shutdown)
 *   resume    starts them again and waits until the cluster is up
 *   groups    the cluster's internal topics (listTopics with internal ones) and every group it
 *             knows (listGroups): what a read-only client must leave as it found it
 * </pre>
 *
 * EOF on stdin, or SIGTERM, stops the cluster and exits. Logs go to stderr.
 */
public final class LiveCluster {
    static final String[] TOPICS = {"lc-a", "lc-b"};
    static final long MIN = 60_000L;
    /** segment.ms: records whose timestamps lie further apart than this roll the segment. */
    static final long ROLL = 120_000L;

    final Cluster cl;
    final long timeoutMs;
    long t0 = System.currentTimeMillis() - 24 * 60 * MIN;
    int round;
    final Map<String, Integer> partitions = new LinkedHashMap<>();

    LiveCluster(Cluster cl, long timeoutMs) {
        this.cl = cl;
        this.timeoutMs = timeoutMs;
    }

    public static void main(String[] argv) throws Exception {
        Path work = null;
        long timeoutMs = 60000;
        for (int i = 0; i < argv.length; i++) {
            if (argv[i].equals("--work")) work = Paths.get(argv[++i]);
            else if (argv[i].equals("--timeout-ms")) timeoutMs = Long.parseLong(argv[++i]);
            else throw new IllegalArgumentException("unknown argument " + argv[i]);
        }
        if (work == null) throw new IllegalArgumentException("--work DIR is required");
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
        System.setOut(System.err);   // Oracle.log and the brokers' chatter: stderr, not the protocol
        Files.createDirectories(work);
        Map<String, String> extra = new TreeMap<>();
        extra.put("log.segment.bytes", "1048576");
        final Cluster cl = Cluster.start(work, timeoutMs, 3, extra, true);
        Runtime.getRuntime().addShutdownHook(new Thread(cl::close));
        LiveCluster lc = new LiveCluster(cl, timeoutMs);
        try {
            lc.setup();
            out.println(Json.line(lc.hello()));
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                line = line.trim();
                if (line.isEmpty()) continue;
                Object ans;
                try {
                    switch (line) {
                        case "state": ans = lc.state(); break;
                        case "produce": lc.produceRound(true); ans = Json.obj("ok", true, "round", lc.round); break;
                        case "stop": cl.stop(); ans = Json.obj("ok", true); break;
                        case "resume": cl.resume(); ans = Json.obj("ok", true); break;
                        case "groups": ans = lc.groups(); break;
                        case "bench": ans = lc.bench(1_000_000); break;
                        default: ans = Json.obj("ok", false, "error", "unknown command " + line);
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                    ans = Json.obj("ok", false, "error", String.valueOf(e));
                }
                out.println(Json.line(ans));
            }
        } finally {
            cl.close();
        }
    }

    Map<String, Object> hello() {
        List<Object> nodes = new ArrayList<>();
        for (Broker b : cl.nodes) {
            nodes.add(Json.obj("id", b.nodeId, "log_dir", b.logDir.toAbsolutePath().toString(),
                    "metadata_dir", b.opts.separateMetadataDir ? b.metaDir.toAbsolutePath().toString()
                            : b.logDir.toAbsolutePath().toString(),
                    "bootstrap", b.bootstrap(), "sasl_bootstrap", "127.0.0.1:" + b.saslPort));
        }
        return Json.obj("ok", true, "bootstrap", cl.bootstrap(), "sasl_bootstrap", "127.0.0.1:" + cl.node(1).saslPort,
                "sasl_user", Broker.SASL_USER, "sasl_password", Broker.SASL_PASSWORD,
                "rlmm_partitions", Broker.RLMM_PARTITIONS, "nodes", nodes, "topics", List.of(TOPICS));
    }

    /** Tiered topics, RF 1, partitions on every node (node 1 hosts most: the tests scan it). */
    void setup() throws Exception {
        Map<String, String> tcfg = new TreeMap<>();
        tcfg.put("segment.ms", Long.toString(ROLL / 2));
        tcfg.put("retention.ms", "-1");
        tcfg.put("remote.storage.enable", "true");
        tcfg.put("local.retention.ms", "-2");
        try (Admin a = cl.admin()) {
            Map<Integer, List<Integer>> asgA = new LinkedHashMap<>();
            int[] nodeOf = {1, 1, 1, 1, 1, 2, 3, 1};
            for (int p = 0; p < nodeOf.length; p++) asgA.put(p, List.of(nodeOf[p]));
            Map<Integer, List<Integer>> asgB = new LinkedHashMap<>();
            asgB.put(0, List.of(1, 2));
            asgB.put(1, List.of(2, 1));
            asgB.put(2, List.of(1, 3));
            asgB.put(3, List.of(3, 1));
            a.createTopics(List.of(new NewTopic(TOPICS[0], asgA).configs(tcfg), new NewTopic(TOPICS[1], asgB).configs(tcfg)))
                    .all().get(timeoutMs, TimeUnit.MILLISECONDS);
            partitions.put(TOPICS[0], asgA.size());
            partitions.put(TOPICS[1], asgB.size());
            waitUntil("every tiered partition led", () -> Broker.allLed(a, partitions.keySet()));
        }
        for (int i = 0; i < 3; i++) produceRound(i > 0);
    }

    /** One segment's worth (2 batches of 5 records) per partition, timestamps one roll later than the last. */
    void produceRound(boolean waitCopied) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cl.bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(timeoutMs));
        Map<TopicPartition, Long> before = latestTieredAll();
        try (KafkaProducer<byte[], byte[]> pr = new KafkaProducer<>(p)) {
            long ts = t0 + (long) round * ROLL;
            for (Map.Entry<String, Integer> e : partitions.entrySet()) {
                for (int part = 0; part < e.getValue(); part++) {
                    for (int b = 0; b < 2; b++) {
                        for (int i = 0; i < 5; i++) {
                            byte[] v = (e.getKey() + "-" + part + "-" + round + "-" + b + "-" + i)
                                    .getBytes(StandardCharsets.UTF_8);
                            pr.send(new ProducerRecord<>(e.getKey(), part, ts + b * 1000L + i, null, v));
                        }
                        pr.flush();
                    }
                }
            }
        }
        round++;
        if (!waitCopied) return;
        // The round rolled the previous active segment: it is copied within a task interval or two.
        for (Map.Entry<TopicPartition, Long> e : before.entrySet()) {
            TopicPartition tp = e.getKey();
            long was = e.getValue();
            waitUntil(tp + " copied past " + was, () -> latestTiered(tp) > was);
        }
    }

    /**
     * The benchmark's input: n records of remote log metadata, as RemoteLogMetadataSerde
     * writes them (a segment COPY_SEGMENT_STARTED, then its COPY_SEGMENT_FINISHED update, over
     * 1000 user partitions of one topic id), produced into topic bench-rlmm (1 partition on
     * node 1, uncompressed), so segscan can read the same records over the network and from
     * node 1's log dir.
     */
    Map<String, Object> bench(int n) throws Exception {
        String topic = "bench-rlmm";
        try (Admin a = cl.admin()) {
            Map<String, String> cfg = new TreeMap<>();
            cfg.put("segment.bytes", Integer.toString(1 << 30));
            cfg.put("retention.ms", "-1");
            a.createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(1))).configs(cfg))).all()
                    .get(timeoutMs, TimeUnit.MILLISECONDS);
            waitUntil(topic + " led", () -> Broker.allLed(a, java.util.Set.of(topic)));
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cl.bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(1 << 20));
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(64L << 20));
        RemoteLogMetadataSerde serde = new RemoteLogMetadataSerde();
        org.apache.kafka.common.Uuid tid = org.apache.kafka.common.Uuid.randomUuid();
        long t = System.currentTimeMillis();
        long bytes = 0;
        try (KafkaProducer<byte[], byte[]> pr = new KafkaProducer<>(p)) {
            for (int i = 0; i < n / 2; i++) {
                int up = i % 1000;
                long k = i / 1000;
                org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId id =
                        new org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId(
                                new org.apache.kafka.common.TopicIdPartition(tid, new TopicPartition("bench-user", up)),
                                org.apache.kafka.common.Uuid.randomUuid());
                byte[] add = serde.serialize(new org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata(
                        id, k * 100, k * 100 + 99, t, 1, t, 1 << 20, Map.of(0, k * 100)));
                byte[] fin = serde.serialize(new org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate(
                        id, t + 1, java.util.Optional.empty(),
                        org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 1));
                bytes += add.length + fin.length;
                pr.send(new ProducerRecord<>(topic, 0, null, add));
                pr.send(new ProducerRecord<>(topic, 0, null, fin));
            }
            pr.flush();
        }
        return Json.obj("ok", true, "topic", topic, "records", (long) (n / 2) * 2, "value_bytes", bytes,
                "dir", cl.node(1).logDir.resolve(topic + "-0").toAbsolutePath().toString(),
                "produce_ms", System.currentTimeMillis() - t);
    }

    long latestTiered(TopicPartition tp) throws Exception {
        try (Admin a = cl.admin()) {
            return a.listOffsets(Map.of(tp, OffsetSpec.latestTiered())).all().get(15, TimeUnit.SECONDS).get(tp).offset();
        }
    }

    Map<TopicPartition, Long> latestTieredAll() throws Exception {
        Map<TopicPartition, OffsetSpec> q = new LinkedHashMap<>();
        for (Map.Entry<String, Integer> e : partitions.entrySet())
            for (int part = 0; part < e.getValue(); part++) q.put(new TopicPartition(e.getKey(), part), OffsetSpec.latestTiered());
        Map<TopicPartition, Long> out = new LinkedHashMap<>();
        try (Admin a = cl.admin()) {
            var r = a.listOffsets(q).all().get(30, TimeUnit.SECONDS);
            for (TopicPartition tp : q.keySet()) out.put(tp, r.get(tp).offset());
        }
        return out;
    }

    /** Internal topics and groups, as the Admin API lists them (no group lookup of its own). */
    Map<String, Object> groups() throws Exception {
        try (Admin a = cl.admin()) {
            java.util.Set<String> names = a.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true))
                    .names().get(30, TimeUnit.SECONDS);
            List<Object> internal = new ArrayList<>();
            for (String n : new java.util.TreeSet<>(names)) if (n.startsWith("__")) internal.add(n);
            List<Object> groups = new ArrayList<>();
            for (org.apache.kafka.clients.admin.GroupListing g : a.listGroups().all().get(30, TimeUnit.SECONDS))
                groups.add(g.groupId());
            return Json.obj("ok", true, "internal_topics", internal, "groups", groups);
        }
    }

    /** Kafka's view: placement, LATEST_TIERED, and the serde's decoding of the whole metadata topic. */
    Map<String, Object> state() throws Exception {
        Map<String, TopicDescription> d;
        try (Admin a = cl.admin()) {
            d = a.describeTopics(partitions.keySet()).allTopicNames().get(30, TimeUnit.SECONDS);
        }
        Map<TopicPartition, Long> tiered = latestTieredAll();
        Map<String, Map<String, String>> segState = new HashMap<>();   // "topic-p" -> segment id -> state
        long records = readRemoteLogMetadata(segState);
        RemoteLogMetadataTopicPartitioner part = new RemoteLogMetadataTopicPartitioner(Broker.RLMM_PARTITIONS);
        List<Object> parts = new ArrayList<>();
        for (String t : partitions.keySet()) {
            TopicDescription td = d.get(t);
            for (TopicPartitionInfo pi : td.partitions()) {
                TopicPartition tp = new TopicPartition(t, pi.partition());
                int mp = part.metadataPartition(new org.apache.kafka.common.TopicIdPartition(td.topicId(), tp));
                Map<String, String> segs = segState.getOrDefault(t + "-" + pi.partition(), Map.of());
                long finished = segs.values().stream().filter(s -> s.equals("COPY_SEGMENT_FINISHED")).count();
                List<Integer> reps = new ArrayList<>();
                for (org.apache.kafka.common.Node n : pi.replicas()) reps.add(n.id());
                parts.add(Json.obj("topic", t, "partition", pi.partition(), "topic_id", td.topicId().toString(),
                        "replicas", reps, "leader", pi.leader() == null ? null : pi.leader().id(),
                        "metadata_partition", mp, "latest_tiered", tiered.get(tp),
                        "finished_segments", finished, "segments_any_state", segs.size()));
            }
        }
        return Json.obj("ok", true, "rlmm_records", records, "partitions", parts);
    }

    /** Consumes __remote_log_metadata from the beginning to the end offsets taken now, decoding with Kafka's serde. */
    long readRemoteLogMetadata(Map<String, Map<String, String>> segState) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cl.bootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        RemoteLogMetadataSerde serde = new RemoteLogMetadataSerde();
        long n = 0;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < Broker.RLMM_PARTITIONS; i++) tps.add(new TopicPartition("__remote_log_metadata", i));
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (true) {
                boolean done = true;
                for (TopicPartition tp : tps) if (c.position(tp, Duration.ofSeconds(30)) < end.get(tp)) done = false;
                if (done) break;
                if (System.currentTimeMillis() > deadline) throw new java.io.IOException("__remote_log_metadata not read in time");
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    if (r.offset() >= end.get(new TopicPartition(r.topic(), r.partition())) || r.value() == null) continue;
                    n++;
                    Map<String, Object> ev = Capture.event(serde.deserialize(r.value()));
                    String key = ev.get("topic") + "-" + ev.get("partition");
                    Map<String, String> segs = segState.computeIfAbsent(key, k -> new HashMap<>());
                    String type = String.valueOf(ev.get("type"));
                    if (type.equals("segment") || type.equals("update")) {
                        segs.put(String.valueOf(ev.get("segment_id")), String.valueOf(ev.get("state")));
                    } else if (type.equals("partition_delete") && "DELETE_PARTITION_FINISHED".equals(ev.get("state"))) {
                        segs.clear();
                    }
                }
            }
        }
        return n;
    }

    void waitUntil(String what, java.util.concurrent.Callable<Boolean> cond) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        Exception last = null;
        while (System.currentTimeMillis() < deadline) {
            try {
                if (Boolean.TRUE.equals(cond.call())) return;
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(200);
        }
        throw new java.io.IOException("timed out after " + timeoutMs + " ms waiting for " + what
                + (last == null ? "" : " (last error: " + last + ")"));
    }
}
