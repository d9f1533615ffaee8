package segscan.oracle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The workloads, one broker run ("case") each. Most topics roll segments by record timestamp:
 * with {@code segment.ms=60000} Kafka rolls when an incoming batch's max timestamp is more than
 * 60 s past the first batch's (LogSegment.shouldRoll/timeWaitedForRoll), so giving records
 * explicit CreateTime timestamps places every segment boundary exactly, without waiting and
 * without the 1 MiB minimum of {@code segment.bytes}. Timestamps are "virtual": a base
 * {@code t0} a few hours before the run plus fixed steps, recorded in case.json.
 */
public final class Workloads {
    private Workloads() {
    }

    static final long MIN = 60_000;
    static final long SEG_MS = 60_000;
    /** A step that always rolls a segment.ms=60000 segment. */
    static final long ROLL = SEG_MS + 1_000;

    abstract static class Case {
        final String description;
        final List<String> shows;
        final boolean live;
        final List<Object> workloadDoc = new ArrayList<>();
        /** Nodes of the cluster: 1 = the single combined node; more = {@link Cluster}. */
        int nodes = 1;
        /** Also capture cluster.json, cluster-metadata.json and server.properties. */
        boolean clusterContext;

        /** The node's layout and static configs; the default is the original single node. */
        Broker.Options options() {
            return new Broker.Options();
        }

        Case(String description, boolean live, String... shows) {
            this.description = description;
            this.live = live;
            this.shows = List.of(shows);
        }

        abstract void run(Ctx c) throws Exception;
    }

    /** Helpers bound to one broker run. */
    static final class Ctx {
        final Broker b;
        final long timeoutMs;
        final long t0;
        final List<Object> timeline = Collections.synchronizedList(new ArrayList<>());
        /** The cluster of a several-node case (b is its node 1), else null. */
        final Cluster cl;
        /** case.json "placement" of a several-node case. */
        final Map<String, Object> placement = new LinkedHashMap<>();

        Ctx(Cluster cl, long timeoutMs) {
            this(cl.node(1), timeoutMs, cl);
        }

        Ctx(Broker b, long timeoutMs) {
            this(b, timeoutMs, null);
        }

        private Ctx(Broker b, long timeoutMs, Cluster cl) {
            this.b = b;
            this.cl = cl;
            this.timeoutMs = timeoutMs;
            long now = System.currentTimeMillis();
            this.t0 = (now / 1000) * 1000 - 3 * 60 * MIN;
        }

        void event(String what, Map<String, Object> details) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("at_ms", System.currentTimeMillis());
            e.put("event", what);
            e.putAll(details);
            timeline.add(e);
        }

        void createTopic(Case c, String name, int partitions, Map<String, String> cfg, String what) throws Exception {
            c.workloadDoc.add(Json.obj("topic", name, "partitions", partitions, "configs", new java.util.TreeMap<>(cfg),
                    "what", what));
            event("create topic", Json.obj("topic", name, "partitions", partitions));
            try (Admin a = b.admin()) {
                a.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(cfg))).all()
                        .get(timeoutMs, TimeUnit.MILLISECONDS);
                waitUntil("leader for every partition of " + name, () -> Broker.allLed(a, java.util.Set.of(name)));
            }
        }

        /** A topic with an explicit replica assignment (partition p -> assignment.get(p)). */
        void createTopicAssigned(Case c, String name, List<List<Integer>> assignment, Map<String, String> cfg,
                                 String what) throws Exception {
            c.workloadDoc.add(Json.obj("topic", name, "partitions", assignment.size(), "replica_assignment", assignment,
                    "configs", new java.util.TreeMap<>(cfg), "what", what));
            event("create topic", Json.obj("topic", name, "partitions", assignment.size(), "replica_assignment",
                    assignment));
            Map<Integer, List<Integer>> asg = new LinkedHashMap<>();
            for (int p = 0; p < assignment.size(); p++) asg.put(p, assignment.get(p));
            try (Admin a = b.admin()) {
                a.createTopics(List.of(new NewTopic(name, asg).configs(cfg))).all().get(timeoutMs, TimeUnit.MILLISECONDS);
                waitUntil("leader for every partition of " + name, () -> Broker.allLed(a, java.util.Set.of(name)));
            }
        }

        void deleteTopic(String topic) throws Exception {
            try (Admin a = b.admin()) {
                a.deleteTopics(List.of(topic)).all().get(timeoutMs, TimeUnit.MILLISECONDS);
            }
            event("delete topic", Json.obj("topic", topic));
        }

        /** incrementalAlterConfigs SET on BROKER resource name ("1": one broker; "": the cluster-wide default). */
        void alterBroker(String broker, Map<String, String> cfg) throws Exception {
            List<AlterConfigOp> ops = new ArrayList<>();
            for (Map.Entry<String, String> e : cfg.entrySet()) {
                ops.add(new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET));
            }
            try (Admin a = b.admin()) {
                a.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.BROKER, broker), ops)).all()
                        .get(timeoutMs, TimeUnit.MILLISECONDS);
            }
            event("alter broker config", Json.obj("broker", broker, "configs", new java.util.TreeMap<>(cfg)));
        }

        /** Local segments of a partition in node id's log dir. */
        List<Long> localSegments(int node, String topic, int p) throws IOException {
            return segmentFiles(cl.node(node).logDir.resolve(topic + "-" + p), ".log");
        }

        void alter(String topic, Map<String, String> cfg) throws Exception {
            List<AlterConfigOp> ops = new ArrayList<>();
            for (Map.Entry<String, String> e : cfg.entrySet()) {
                ops.add(new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET));
            }
            try (Admin a = b.admin()) {
                a.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), ops)).all()
                        .get(timeoutMs, TimeUnit.MILLISECONDS);
            }
            event("alter topic config", Json.obj("topic", topic, "configs", new java.util.TreeMap<>(cfg)));
        }

        KafkaProducer<byte[], byte[]> producer(Map<String, Object> extra) {
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrap());
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            // Records sent back to back and then flushed form one batch per partition.
            p.put(ProducerConfig.LINGER_MS_CONFIG, "1000");
            p.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
            p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
            p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
            p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(timeoutMs));
            p.putAll(extra);
            return new KafkaProducer<>(p);
        }

        static byte[] value(String tag, long i, int size) {
            if (size < 0) return null;
            StringBuilder sb = new StringBuilder();
            while (sb.length() < size) sb.append(tag).append('-').append(i).append('|');
            sb.setLength(size);
            return sb.toString().getBytes(StandardCharsets.UTF_8);
        }

        /**
         * Sends n records to one partition and flushes: one batch. Record i gets timestamp
         * {@code ts + i} (ts < 0: the producer's clock), key "key-i" unless keyMod hits, value of
         * valueSize bytes (valueSize < 0: null, a tombstone). Returns [firstOffset, lastOffset].
         */
        long[] batch(KafkaProducer<byte[], byte[]> p, String topic, int partition, int n, long ts, String[] keys,
                     int valueSize, boolean headers) throws Exception {
            List<Future<RecordMetadata>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                RecordHeaders h = new RecordHeaders();
                if (headers) {
                    h.add("oracle", ("h" + i).getBytes(StandardCharsets.UTF_8));
                }
                byte[] key = keys == null || keys[i] == null ? null : keys[i].getBytes(StandardCharsets.UTF_8);
                Long t = ts < 0 ? null : ts + i;
                fs.add(p.send(new ProducerRecord<>(topic, partition, t, key, value(topic, i, valueSize), h)));
            }
            p.flush();
            long first = Long.MAX_VALUE;
            long last = -1;
            for (Future<RecordMetadata> f : fs) {
                RecordMetadata md = f.get(timeoutMs, TimeUnit.MILLISECONDS);
                first = Math.min(first, md.offset());
                last = Math.max(last, md.offset());
            }
            event("produce", Json.obj("topic", topic, "partition", partition, "records", n, "first_offset", first,
                    "last_offset", last, "timestamp_ms", ts < 0 ? null : ts));
            return new long[] {first, last};
        }

        static String[] keys(String prefix, int n) {
            String[] k = new String[n];
            for (int i = 0; i < n; i++) k[i] = prefix + i;
            return k;
        }

        void waitUntil(String what, Callable<Boolean> cond) throws Exception {
            long deadline = System.currentTimeMillis() + timeoutMs;
            Exception last = null;
            while (System.currentTimeMillis() < deadline) {
                try {
                    if (Boolean.TRUE.equals(cond.call())) {
                        event("waited", Json.obj("for", what));
                        return;
                    }
                } catch (Exception e) {
                    last = e;
                }
                Thread.sleep(200);
            }
            throw new IOException("timed out after " + timeoutMs + " ms waiting for: " + what
                    + (last == null ? "" : " (last error: " + last + ")") + "; broker log: " + b.work.resolve("server.log"));
        }

        /** Waits until value() has not changed for stableMs (the broker's periodic tasks settled). */
        void waitStable(String what, Callable<Object> value, long stableMs) throws Exception {
            long deadline = System.currentTimeMillis() + timeoutMs;
            Object prev = value.call();
            long since = System.currentTimeMillis();
            while (System.currentTimeMillis() < deadline) {
                Thread.sleep(250);
                Object v = value.call();
                if (!v.equals(prev)) {
                    prev = v;
                    since = System.currentTimeMillis();
                } else if (System.currentTimeMillis() - since >= stableMs) {
                    event("stable", Json.obj("for", what, "value", String.valueOf(v)));
                    return;
                }
            }
            throw new IOException("timed out after " + timeoutMs + " ms waiting for " + what + " to settle (last "
                    + prev + ")");
        }

        List<Long> segmentFiles(Path dir, String suffix) throws IOException {
            if (!Files.isDirectory(dir)) return List.of();
            try (Stream<Path> s = Files.list(dir)) {
                return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(suffix))
                        .map(n -> Long.valueOf(n.substring(0, 20))).sorted().collect(Collectors.toList());
            }
        }

        List<Long> localSegments(String topic, int p) throws IOException {
            return segmentFiles(b.logDir.resolve(topic + "-" + p), ".log");
        }

        List<Long> remoteSegments(String topic, int p) throws IOException {
            return segmentFiles(b.remoteDir.resolve(topic + "-" + p), ".log");
        }

        /** highestOffsetInRemoteStorage as the broker reports it (ListOffsets LATEST_TIERED, KIP-1005). */
        long latestTiered(String topic, int p) throws Exception {
            try (Admin a = b.admin()) {
                TopicPartition tp = new TopicPartition(topic, p);
                return a.listOffsets(Map.of(tp, OffsetSpec.latestTiered())).all().get(15, TimeUnit.SECONDS)
                        .get(tp).offset();
            }
        }

        void restart() throws Exception {
            event("broker restart (SIGTERM, clean shutdown, start)", Json.obj());
            b.restart();
        }
    }

    static Map<String, String> cfg(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }

    static Map<String, Object> pcfg(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    // ------------------------------------------------------------------------------ cases

    static final Map<String, Case> ALL = new LinkedHashMap<>();

    static {
        ALL.put("plain", new Case("Plain v2 batches (non-idempotent producer, keys, null keys, headers, a "
                + "tombstone), one topic per codec, and 20 small partitions (one left empty). Not tiered. A second "
                + "copy (plain-live) is taken while the broker runs.", true,
                "v2 batch framing and CRC32C over uncompressed, gzip, snappy, lz4 and zstd batches",
                "segment boundaries placed by segment.ms with CreateTime timestamps",
                "an empty partition (many-partitions-19) and single-segment partitions",
                "plain-live: active segments with preallocated .index/.timeindex (4096 bytes) and no "
                        + ".kafka_cleanshutdown") {
            @Override
            void run(Ctx c) throws Exception {
                Map<String, String> t = cfg("segment.ms", "60000", "retention.ms", "-1");
                c.createTopic(this, "plain-v2", 1, t, "4 segments (3 closed) of 3 batches x 5 records; "
                        + "non-idempotent producer (producerId -1); null keys, headers, one tombstone");
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg("enable.idempotence", "false", "acks", "1"))) {
                    for (int s = 0; s < 4; s++) {
                        for (int bi = 0; bi < 3; bi++) {
                            String[] k = Ctx.keys("k-" + s + "-" + bi + "-", 5);
                            k[4] = null;
                            int vs = (s == 2 && bi == 1) ? -1 : 40;
                            c.batch(p, "plain-v2", 0, 5, c.t0 + s * ROLL + bi * 1000, k, vs, bi == 1);
                        }
                    }
                }
                for (String codec : new String[] {"gzip", "snappy", "lz4", "zstd"}) {
                    String topic = "codec-" + codec;
                    c.createTopic(this, topic, 1, t, "3 segments (2 closed) of 2 " + codec
                            + "-compressed batches x 20 records (idempotent producer, compressible values)");
                    try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg("compression.type", codec))) {
                        for (int s = 0; s < 3; s++) {
                            for (int bi = 0; bi < 2; bi++) {
                                c.batch(p, topic, 0, 20, c.t0 + 60 * MIN + s * ROLL + bi * 1000,
                                        Ctx.keys("key-", 20), 120, false);
                            }
                        }
                    }
                }
                c.createTopic(this, "many-partitions", 20, cfg(), "20 partitions, default configs; partition p "
                        + "gets (p % 4) + 1 batches of 2 records with producer-clock timestamps; partition 19 none");
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg())) {
                    for (int part = 0; part < 19; part++) {
                        for (int bi = 0; bi <= part % 4; bi++) {
                            c.batch(p, "many-partitions", part, 2, -1, Ctx.keys("p" + part + "-", 2), 16, false);
                        }
                    }
                }
            }
        });

        ALL.put("txn", new Case("Idempotent producer (sequences, producer snapshots) and a transactional producer "
                + "with commits and aborts across segment rolls (control batches, .txnindex), read back by a "
                + "read_committed consumer group (offsets committed to __consumer_offsets).", false,
                "producerId/epoch/sequence fields and .snapshot files",
                "COMMIT and ABORT control batches (isControl, isTransactional) and .txnindex aborted-txn entries",
                "__transaction_state-0 and __consumer_offsets-0 as a broker writes them") {
            @Override
            void run(Ctx c) throws Exception {
                c.createTopic(this, "idempotent", 1, cfg("segment.ms", "60000", "retention.ms", "-1"),
                        "3 segments of 3 batches x 4 records from one idempotent producer (acks=all)");
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg("enable.idempotence", "true", "acks", "all"))) {
                    for (int s = 0; s < 3; s++) {
                        for (int bi = 0; bi < 3; bi++) {
                            c.batch(p, "idempotent", 0, 4, c.t0 + s * ROLL + bi * 1000, Ctx.keys("i-", 4), 30, false);
                        }
                    }
                }
                // Producer-clock timestamps: markers carry the coordinator's clock, so virtual
                // timestamps would make every marker roll the segment. Rolls come from real time.
                c.createTopic(this, "transactional", 2, cfg("segment.ms", "2000", "retention.ms", "-1"),
                        "2 partitions; transactions commit, abort, (2.5 s pause: segment.ms=2000 rolls on the next "
                                + "append), commit, abort, (pause), abort, commit; each transaction writes one batch "
                                + "of 3 records to each partition");
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg("transactional.id", "oracle-txn",
                        "enable.idempotence", "true", "acks", "all"))) {
                    p.initTransactions();
                    boolean[] commit = {true, false, true, false, false, true};
                    for (int i = 0; i < commit.length; i++) {
                        if (i == 2 || i == 4) Thread.sleep(2500);
                        p.beginTransaction();
                        for (int part = 0; part < 2; part++) {
                            List<Future<RecordMetadata>> fs = new ArrayList<>();
                            for (int r = 0; r < 3; r++) {
                                fs.add(p.send(new ProducerRecord<>("transactional", part,
                                        ("t" + i + "-" + r).getBytes(StandardCharsets.UTF_8),
                                        Ctx.value("txn" + i, r, 30))));
                            }
                            p.flush();
                            for (Future<RecordMetadata> f : fs) f.get(c.timeoutMs, TimeUnit.MILLISECONDS);
                        }
                        if (commit[i]) p.commitTransaction();
                        else p.abortTransaction();
                        c.event(commit[i] ? "commit" : "abort", Json.obj("transaction", i));
                    }
                }
                Properties cp = new Properties();
                cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, c.b.bootstrap());
                cp.put(ConsumerConfig.GROUP_ID_CONFIG, "oracle-group");
                cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
                cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
                cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
                cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
                cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
                int seen = 0;
                try (KafkaConsumer<byte[], byte[]> k = new KafkaConsumer<>(cp)) {
                    k.subscribe(List.of("transactional"));
                    long deadline = System.currentTimeMillis() + c.timeoutMs;
                    // 3 committed transactions x 2 partitions x 3 records.
                    while (seen < 18 && System.currentTimeMillis() < deadline) {
                        ConsumerRecords<byte[], byte[]> rs = k.poll(Duration.ofMillis(500));
                        seen += rs.count();
                    }
                    if (seen != 18) throw new IOException("read_committed consumer saw " + seen + " records, want 18");
                    k.commitSync(Duration.ofMillis(c.timeoutMs));
                }
                c.event("read_committed consumer", Json.obj("records", seen, "group", "oracle-group"));
            }
        });

        ALL.put("epochs", new Case("Several leader epochs: two clean restarts of the broker, with the active "
                + "segment carrying across each restart, so closed segments hold batches of two epochs. One topic "
                + "is tiered, so its remote segments carry multi-epoch leader_epochs maps.", false,
                "partitionLeaderEpoch changing inside a segment; leader-epoch-checkpoint with several entries",
                "remote segment metadata whose leader_epochs map has two entries",
                "highestOffsetInRemoteStorage re-derived by the copy task after each restart") {
            @Override
            void run(Ctx c) throws Exception {
                Map<String, String> plain = cfg("segment.ms", "60000", "retention.ms", "-1");
                Map<String, String> tiered = cfg("segment.ms", "60000", "retention.ms", "-1",
                        "remote.storage.enable", "true", "local.retention.ms", "-2", "local.retention.bytes", "-2");
                String what = "segments A | B | C | D(active): A written in the first epoch; B starts before the "
                        + "first restart and continues after it; C likewise across the second restart; D after";
                c.createTopic(this, "epochs", 1, plain, what);
                c.createTopic(this, "epochs-tiered", 1, tiered, what + "; tiered, local retention keeps everything");
                String[] topics = {"epochs", "epochs-tiered"};
                long[][] phases = {{0, 0}, {1, 0}, {1, 1000}, {2, 0}, {2, 1000}, {3, 0}};
                for (int ph = 0; ph < phases.length; ph++) {
                    if (ph == 2 || ph == 4) c.restart();
                    try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg())) {
                        for (String t : topics) {
                            for (int bi = 0; bi < 2; bi++) {
                                c.batch(p, t, 0, 4, c.t0 + phases[ph][0] * ROLL + phases[ph][1] + bi * 100,
                                        Ctx.keys("e" + ph + "-", 4), 50, false);
                            }
                        }
                    }
                }
                List<Long> local = c.localSegments("epochs-tiered", 0);
                long want = local.get(local.size() - 1) - 1;
                c.waitUntil("epochs-tiered-0 copied up to offset " + want, () -> c.latestTiered("epochs-tiered", 0) == want);
            }
        });

        ALL.put("tiered", new Case("Tiered storage: a topic whose closed segments are copied to remote storage and "
                + "the older half then deleted locally by local.retention.ms; and single-record segments (one record "
                + "per segment, the KAFKA-20977 shape) whose last copied segment has base == end == "
                + "highestOffsetInRemoteStorage.", false,
                "remote copy of every closed segment, COPY_SEGMENT_STARTED/FINISHED events",
                "local deletion of copied segments by local.retention.ms (log start offset < local start offset)",
                "KAFKA-20977: broker RemoteCopyLagSegments/Bytes counting a copied single-offset segment") {
            @Override
            void run(Ctx c) throws Exception {
                c.createTopic(this, "tiered", 1, cfg("segment.ms", "60000", "retention.ms", "-1",
                        "retention.bytes", "-1", "remote.storage.enable", "true", "local.retention.ms", "3600000"),
                        "9 segments of 2 batches x 5 records: 4 with timestamps ~3 h old (deleted locally after "
                                + "upload, local.retention.ms=1h), 4 ~20 min old (uploaded, kept), 1 active");
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg())) {
                    long now = System.currentTimeMillis();
                    for (int s = 0; s < 9; s++) {
                        long base = s < 4 ? c.t0 + s * ROLL : now - 20 * MIN + (s - 4) * ROLL;
                        for (int bi = 0; bi < 2; bi++) {
                            c.batch(p, "tiered", 0, 5, base + bi * 1000, Ctx.keys("t" + s + "-", 5), 200, false);
                        }
                    }
                }
                c.createTopic(this, "single-record", 1, cfg("segment.ms", "60000", "retention.ms", "-1",
                        "remote.storage.enable", "true", "local.retention.ms", "-2"),
                        "6 records, one per segment (timestamps 61 s apart: a 1-record-per-minute producer); "
                                + "5 closed single-offset segments are copied, the 6th is active");
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg())) {
                    for (int s = 0; s < 6; s++) {
                        c.batch(p, "single-record", 0, 1, c.t0 + 120 * MIN + s * ROLL, Ctx.keys("s" + s + "-", 1),
                                64, false);
                    }
                }
                List<Long> tl = c.localSegments("tiered", 0);
                long tWant = tl.get(tl.size() - 1) - 1;
                c.waitUntil("tiered-0 copied up to " + tWant, () -> c.latestTiered("tiered", 0) == tWant);
                c.waitUntil("single-record-0 copied up to 4", () -> c.latestTiered("single-record", 0) == 4);
                c.waitUntil("tiered-0 old segments deleted locally (5 local segments left)",
                        () -> c.localSegments("tiered", 0).size() == 5);
            }
        });

        ALL.put("retention-cap", new Case("A tiered topic held at its retention.bytes cap (the KAFKA-20732 shape): "
                + "remote segments deleted by size retention, local copies trimmed by local.retention.bytes, a "
                + "restart (new leadership: highestOffsetInRemoteStorage starts at -1 again) and more data, then "
                + "copying disabled and a second restart, so size retention runs with nothing to seed the remote "
                + "offset but the expiration task itself.", false,
                "remote size retention: DELETE_SEGMENT_STARTED/FINISHED events and a raised log start offset",
                "total = only-local + remote bytes at or under retention.bytes after the broker settles",
                "KAFKA-20732: after a second restart with remote.log.copy.disable=true only the expiration task runs; "
                        + "unfixed brokers (4.3.1) then evaluate size retention with highestOffsetInRemoteStorage=-1") {
            @Override
            void run(Ctx c) throws Exception {
                c.createTopic(this, "capped", 1, cfg("segment.ms", "60000", "retention.ms", "-1",
                        "remote.storage.enable", "true"),
                        "segments of 2 batches x 10 records (equal sizes S); after 10 segments retention.bytes is "
                                + "set to 5.5*S and local.retention.bytes to 2*S; restart; 2 more segments; then "
                                + "remote.log.copy.disable=true and a second restart");
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg())) {
                    for (int s = 0; s < 11; s++) {
                        for (int bi = 0; bi < 2; bi++) {
                            c.batch(p, "capped", 0, 10, c.t0 + 60 * MIN + s * ROLL + bi * 1000,
                                    Ctx.keys("c" + s + "-", 10), 100, false);
                        }
                    }
                }
                List<Long> segs = c.localSegments("capped", 0);
                long seg0 = Files.size(c.b.logDir.resolve("capped-0").resolve(String.format("%020d.log", segs.get(0))));
                long want = segs.get(segs.size() - 1) - 1;
                c.waitUntil("capped-0 copied up to " + want, () -> c.latestTiered("capped", 0) == want);
                c.alter("capped", cfg("retention.bytes", Long.toString(5 * seg0 + seg0 / 2),
                        "local.retention.bytes", Long.toString(2 * seg0)));
                workloadDoc.add(Json.obj("segment_size_S", seg0));
                c.waitStable("capped-0 remote and local segment lists",
                        () -> c.remoteSegments("capped", 0) + " / " + c.localSegments("capped", 0), 4000);
                c.restart();
                Thread.sleep(3000);
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg())) {
                    for (int s = 11; s < 13; s++) {
                        for (int bi = 0; bi < 2; bi++) {
                            c.batch(p, "capped", 0, 10, c.t0 + 60 * MIN + s * ROLL + bi * 1000,
                                    Ctx.keys("c" + s + "-", 10), 100, false);
                        }
                    }
                }
                List<Long> segs2 = c.localSegments("capped", 0);
                long want2 = segs2.get(segs2.size() - 1) - 1;
                c.waitUntil("capped-0 copied up to " + want2, () -> c.latestTiered("capped", 0) == want2);
                c.waitStable("capped-0 remote and local segment lists",
                        () -> c.remoteSegments("capped", 0) + " / " + c.localSegments("capped", 0), 4000);
                // With copying off no copy task ever seeds highestOffsetInRemoteStorage after the
                // next restart, so the expiration task alone decides: a broker without the
                // KAFKA-20732 fix counts every local byte as not-yet-remote and deletes one remote
                // segment too many; a fixed one seeds first and deletes nothing.
                // Kafka requires local.retention.bytes == retention.bytes (-2) once copying is off.
                c.alter("capped", cfg("remote.log.copy.disable", "true", "local.retention.bytes", "-2"));
                c.restart();
                c.waitStable("capped-0 remote segment list after restart with copy disabled",
                        () -> c.remoteSegments("capped", 0) + " / " + c.localSegments("capped", 0), 6000);
            }
        });

        ALL.put("compacted", new Case("A compacted topic (cleanup.policy=compact, min.cleanable.dirty.ratio=0.01) "
                + "with repeated keys and a tombstone, compacted by the log cleaner: offset gaps inside and between "
                + "segments, and merged segments.", false,
                "offset gaps: batches whose first offset is above the segment's base offset, and lastOffset - "
                        + "baseOffset + 1 > count",
                "cleaner-offset-checkpoint, segments merged by the cleaner") {
            @Override
            void run(Ctx c) throws Exception {
                c.createTopic(this, "compacted", 1, cfg("cleanup.policy", "compact", "min.cleanable.dirty.ratio",
                        "0.01", "segment.ms", "60000", "min.compaction.lag.ms", "0"),
                        "segments: k0..k9 v1 | k0..k4 v2, k5..k9 v2 | k0..k2 v3 + tombstone k3 | k8 v4 (active); "
                                + "then the cleaner runs");
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg())) {
                    long base = c.t0 + 90 * MIN;
                    c.batch(p, "compacted", 0, 10, base, Ctx.keys("k", 10), 40, false);
                    c.batch(p, "compacted", 0, 5, base + ROLL, Ctx.keys("k", 5), 41, false);
                    c.batch(p, "compacted", 0, 5, base + ROLL + 1000,
                            new String[] {"k5", "k6", "k7", "k8", "k9"}, 41, false);
                    c.batch(p, "compacted", 0, 3, base + 2 * ROLL, Ctx.keys("k", 3), 42, false);
                    c.batch(p, "compacted", 0, 1, base + 2 * ROLL + 1000, new String[] {"k3"}, -1, false);
                    c.batch(p, "compacted", 0, 1, base + 3 * ROLL, new String[] {"k8"}, 43, false);
                }
                List<Long> segs = c.localSegments("compacted", 0);
                long active = segs.get(segs.size() - 1);
                Path ckpt = c.b.logDir.resolve("cleaner-offset-checkpoint");
                c.waitUntil("cleaner-offset-checkpoint reaches " + active + " for compacted-0", () -> {
                    if (!Files.exists(ckpt)) return false;
                    for (String l : Files.readAllLines(ckpt)) {
                        String[] f = l.trim().split("\\s+");
                        if (f.length == 3 && f[0].equals("compacted") && f[1].equals("0")
                                && Long.parseLong(f[2]) >= active) {
                            return true;
                        }
                    }
                    return false;
                });
                Path dir = c.b.logDir.resolve("compacted-0");
                c.waitUntil("no .deleted/.cleaned/.swap files left in compacted-0", () -> {
                    try (Stream<Path> s = Files.list(dir)) {
                        return s.noneMatch(q -> {
                            String n = q.getFileName().toString();
                            return n.endsWith(".deleted") || n.endsWith(".cleaned") || n.endsWith(".swap");
                        });
                    }
                });
            }
        });

        ALL.put("cluster-meta", clusterMeta());
        ALL.put("multi-broker", multiBroker());
    }

    // ------------------------------------------------------------------ cluster context

    /** Static server.properties values of cluster-meta that differ from Kafka's defaults on purpose. */
    static final Map<String, String> CLUSTER_META_STATIC = cfg(
            // Effective retention.ms of every topic without its own (STATIC_BROKER_CONFIG, synonym
            // log.retention.hours; Kafka's default is 168).
            "log.retention.hours", "72",
            // Effective segment.bytes of every topic without its own (STATIC_BROKER_CONFIG;
            // Kafka's default is 1 GiB). log.retention.hours alone would not show that source:
            // DescribeConfigs reports the retention.ms it yields as DEFAULT_CONFIG.
            "log.segment.bytes", "536870912",
            // Snapshots within seconds instead of an hour (KRaftConfigs: atLeast(0)); the NoOp
            // records the active controller writes every metadata.max.idle.interval.ms (500 ms)
            // always give a snapshot something new. Segments roll every 6 s, so the metadata
            // log has several .log segments as well.
            "metadata.log.max.snapshot.interval.ms", "10000",
            "metadata.log.segment.ms", "6000");

    static Case clusterMeta() {
        return new Case("Kafka's default layout (metadata.log.dir unset: __cluster_metadata-0 inside the log dir) "
                + "with metadata snapshots every 10 s and metadata segments rolled every 6 s; topics whose "
                + "effective configs come from every source (topic config set at creation and after it, a "
                + "dynamic per-broker config, a dynamic cluster-wide default, a static server.properties value, "
                + "Kafka's default); a compacted topic after cleaning; tiered topics (the single-record shape); "
                + "a tiered topic created and deleted; a preallocated topic. A second copy "
                + "(cluster-meta-live, main release only) is taken while the broker runs.", true,
                "__cluster_metadata-0 in the log dir: <offset>-<epoch>.checkpoint snapshots, several .log "
                        + "segments, records after the newest snapshot; decoded by DumpLogSegments "
                        + "--cluster-metadata-decoder in cluster-metadata.json",
                "DescribeConfigs value and source for DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, "
                        + "DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG (cluster.json)",
                "a cleaned compacted segment whose first batch is above its file-name offset",
                "tiered topic whose local retention is the cluster-wide default; KAFKA-20977 single-record shape",
                "a deleted topic: RemoveTopicRecord in the metadata log, its remote partition deleted",
                "cluster-meta-live: a preallocated (preallocate=true, segment.bytes=1 MiB) active segment with a "
                        + "zero tail, and the metadata log's active segment while the broker runs") {
            {
                clusterContext = true;
            }

            @Override
            Broker.Options options() {
                Broker.Options o = new Broker.Options();
                o.separateMetadataDir = false;
                o.extra.putAll(CLUSTER_META_STATIC);
                return o;
            }

            @Override
            void run(Ctx c) throws Exception {
                // Dynamic broker configs first, so every topic is created under them.
                // Per-broker beats the cluster-wide default for the same key (retention.bytes).
                c.alterBroker("", cfg("log.retention.bytes", "2147483648", "log.local.retention.ms", "3600000"));
                c.alterBroker("1", cfg("log.retention.bytes", "1073741824"));
                workloadDoc.add(Json.obj("static_broker_configs", new java.util.TreeMap<>(CLUSTER_META_STATIC),
                        "dynamic_cluster_default", cfg("log.retention.bytes", "2147483648",
                                "log.local.retention.ms", "3600000"),
                        "dynamic_broker_1", cfg("log.retention.bytes", "1073741824"),
                        "expected_effective", Json.obj(
                                "defaults", "retention.ms 259200000 STATIC_BROKER_CONFIG (log.retention.hours); "
                                        + "retention.bytes 1073741824 DYNAMIC_BROKER_CONFIG; local.retention.ms "
                                        + "3600000 DYNAMIC_DEFAULT_BROKER_CONFIG; segment.bytes 536870912 STATIC_BROKER_CONFIG",
                                "dyn-config", "retention.ms and retention.bytes DYNAMIC_TOPIC_CONFIG, set after "
                                        + "creation (ConfigRecords in a later batch than the TopicRecord)",
                                "create-config", "retention.ms, retention.bytes, segment.ms DYNAMIC_TOPIC_CONFIG, "
                                        + "given at creation (ConfigRecords in the TopicRecord's batch)")));

                c.createTopic(this, "defaults", 1, cfg(), "no topic configs: every value from the broker");
                c.createTopic(this, "create-config", 1, cfg("retention.ms", "43200000", "retention.bytes", "5000000",
                        "segment.ms", "60000"), "configs given at creation; 3 segments of 2 batches x 5 records");
                c.createTopic(this, "dyn-config", 1, cfg(), "created without configs, then retention.ms=86400000 "
                        + "and retention.bytes=1048576 set by incrementalAlterConfigs; 2 batches");
                c.alter("dyn-config", cfg("retention.ms", "86400000", "retention.bytes", "1048576"));
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg())) {
                    long base = c.t0 + 100 * MIN;
                    c.batch(p, "defaults", 0, 5, base, Ctx.keys("d-", 5), 30, false);
                    for (int s = 0; s < 3; s++) {
                        for (int bi = 0; bi < 2; bi++) {
                            c.batch(p, "create-config", 0, 5, base + s * ROLL + bi * 1000, Ctx.keys("cc-", 5), 30, false);
                        }
                    }
                    c.batch(p, "dyn-config", 0, 5, base, Ctx.keys("dc-", 5), 30, false);
                    c.batch(p, "dyn-config", 0, 5, base + 1000, Ctx.keys("dc-", 5), 30, false);
                }

                // Preallocated: segment files created at segment.bytes (1 MiB, Kafka's minimum)
                // and trimmed when rolled or closed, so only the live copy shows the zero tail.
                c.createTopic(this, "prealloc", 1, cfg("preallocate", "true", "segment.bytes", "1048576",
                        "segment.ms", "60000"), "preallocate=true, segment.bytes=1 MiB; 2 segments of 3 batches x 5 "
                        + "records (1 closed, trimmed at roll; the active one preallocated to 1 MiB while running)");
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg())) {
                    for (int s = 0; s < 2; s++) {
                        for (int bi = 0; bi < 3; bi++) {
                            c.batch(p, "prealloc", 0, 5, c.t0 + 110 * MIN + s * ROLL + bi * 1000,
                                    Ctx.keys("pa-", 5), 60, false);
                        }
                    }
                }

                c.createTopic(this, "compacted", 1, cfg("cleanup.policy", "compact", "min.cleanable.dirty.ratio",
                        "0.01", "segment.ms", "60000", "min.compaction.lag.ms", "0"),
                        "as the compacted case: k0..k9 v1 | k0..k9 v2 | k0..k2 v3 + tombstone k3 | k8 v4 (active); "
                                + "then the cleaner runs");
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg())) {
                    long base = c.t0 + 90 * MIN;
                    c.batch(p, "compacted", 0, 10, base, Ctx.keys("k", 10), 40, false);
                    c.batch(p, "compacted", 0, 5, base + ROLL, Ctx.keys("k", 5), 41, false);
                    c.batch(p, "compacted", 0, 5, base + ROLL + 1000,
                            new String[] {"k5", "k6", "k7", "k8", "k9"}, 41, false);
                    c.batch(p, "compacted", 0, 3, base + 2 * ROLL, Ctx.keys("k", 3), 42, false);
                    c.batch(p, "compacted", 0, 1, base + 2 * ROLL + 1000, new String[] {"k3"}, -1, false);
                    c.batch(p, "compacted", 0, 1, base + 3 * ROLL, new String[] {"k8"}, 43, false);
                }

                c.createTopic(this, "tiered", 1, cfg("segment.ms", "60000", "remote.storage.enable", "true"),
                        "9 segments of 2 batches x 5 records: 4 ~3 h old (deleted locally after upload by the "
                                + "cluster-wide default log.local.retention.ms=1h), 4 ~20 min old (uploaded, kept), "
                                + "1 active; retention.ms from log.retention.hours (72 h)");
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg())) {
                    long now = System.currentTimeMillis();
                    for (int s = 0; s < 9; s++) {
                        long base = s < 4 ? c.t0 + s * ROLL : now - 20 * MIN + (s - 4) * ROLL;
                        for (int bi = 0; bi < 2; bi++) {
                            c.batch(p, "tiered", 0, 5, base + bi * 1000, Ctx.keys("t" + s + "-", 5), 200, false);
                        }
                    }
                }
                c.createTopic(this, "single-record", 1, cfg("segment.ms", "60000", "retention.ms", "-1",
                        "remote.storage.enable", "true", "local.retention.ms", "-2"),
                        "6 records, one per segment (KAFKA-20977 shape); 5 closed single-offset segments copied");
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg())) {
                    for (int s = 0; s < 6; s++) {
                        c.batch(p, "single-record", 0, 1, c.t0 + 120 * MIN + s * ROLL, Ctx.keys("s" + s + "-", 1),
                                64, false);
                    }
                }
                c.createTopic(this, "deleted-topic", 1, cfg("segment.ms", "60000", "retention.ms", "-1",
                        "remote.storage.enable", "true", "local.retention.ms", "-2"),
                        "tiered, 2 segments (1 copied), then deleted: RemoveTopicRecord, remote partition deleted");
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg())) {
                    for (int s = 0; s < 2; s++) {
                        c.batch(p, "deleted-topic", 0, 3, c.t0 + 130 * MIN + s * ROLL, Ctx.keys("x-", 3), 50, false);
                    }
                }
                c.waitUntil("deleted-topic-0 copied up to 2", () -> c.latestTiered("deleted-topic", 0) == 2);
                c.deleteTopic("deleted-topic");

                List<Long> tl = c.localSegments("tiered", 0);
                long tWant = tl.get(tl.size() - 1) - 1;
                c.waitUntil("tiered-0 copied up to " + tWant, () -> c.latestTiered("tiered", 0) == tWant);
                c.waitUntil("single-record-0 copied up to 4", () -> c.latestTiered("single-record", 0) == 4);
                c.waitUntil("tiered-0 old segments deleted locally (5 local segments left)",
                        () -> c.localSegments("tiered", 0).size() == 5);
                c.waitUntil("deleted-topic's remote files deleted", () -> c.remoteSegments("deleted-topic", 0).isEmpty());
                waitCleaned(c, "compacted");
                // Two snapshots (10 s apart) besides the bootstrap one (0-0, written by format),
                // and, as the NoOps keep coming, records after the newest.
                Path md = c.b.logDir.resolve("__cluster_metadata-0");
                c.waitUntil("two metadata snapshots besides the bootstrap one", () -> {
                    try (Stream<Path> st = Files.list(md)) {
                        return st.filter(q -> q.getFileName().toString().endsWith(".checkpoint")).count() >= 3;
                    }
                });
            }
        };
    }

    /** Waits until the cleaner has cleaned up to the active segment of topic-0 and left no temporary files. */
    static void waitCleaned(Ctx c, String topic) throws Exception {
        List<Long> segs = c.localSegments(topic, 0);
        long active = segs.get(segs.size() - 1);
        Path ckpt = c.b.logDir.resolve("cleaner-offset-checkpoint");
        c.waitUntil("cleaner-offset-checkpoint reaches " + active + " for " + topic + "-0", () -> {
            if (!Files.exists(ckpt)) return false;
            for (String l : Files.readAllLines(ckpt)) {
                String[] f = l.trim().split("\\s+");
                if (f.length == 3 && f[0].equals(topic) && f[1].equals("0") && Long.parseLong(f[2]) >= active) {
                    return true;
                }
            }
            return false;
        });
        Path dir = c.b.logDir.resolve(topic + "-0");
        c.waitUntil("no .deleted/.cleaned/.swap files left in " + topic + "-0", () -> {
            try (Stream<Path> s = Files.list(dir)) {
                return s.noneMatch(q -> {
                    String n = q.getFileName().toString();
                    return n.endsWith(".deleted") || n.endsWith(".cleaned") || n.endsWith(".swap");
                });
            }
        });
    }

    static Case multiBroker() {
        return new Case("A 3-node KRaft cluster on loopback: node 1 combined controller+broker, nodes 2 and 3 "
                + "brokers only; metadata.log.dir unset on all (each logdir-N holds its own __cluster_metadata-0). "
                + "__remote_log_metadata has 5 partitions, RF 1, spread over the brokers; tiered topics with RF 1 "
                + "and RF 2 placed so that node 1 hosts tiered partitions whose remote log metadata partition is on "
                + "another node, and others whose metadata partition it holds.", false,
                "one broker's log dir lacking the remote metadata of some of its tiered partitions "
                        + "(case.json placement: metadata_partition and the node holding it)",
                "__remote_log_metadata partitions on several brokers; remote-metadata.json over all of them",
                "RF 2 tiered partitions: the leader copies, the follower keeps local segments only",
                "brokers-only nodes' copy of the metadata log") {
            {
                nodes = 3;
                clusterContext = true;
            }

            @Override
            Broker.Options options() {
                Broker.Options o = new Broker.Options();
                // A snapshot within the run, so logdir-1's metadata log is snapshot + log.
                o.extra.put("metadata.log.max.snapshot.interval.ms", "10000");
                return o;
            }

            @Override
            void run(Ctx c) throws Exception {
                Map<String, String> tcfg = cfg("segment.ms", "60000", "retention.ms", "-1",
                        "remote.storage.enable", "true", "local.retention.ms", "-2");
                c.createTopicAssigned(this, "mt-a", List.of(List.of(1), List.of(1), List.of(1), List.of(1),
                        List.of(2), List.of(3)), tcfg, "tiered RF 1; partitions 0-3 on node 1, 4 on node 2, 5 on node 3; "
                                + "3 segments of 2 batches x 5 records each, 2 copied");
                c.createTopicAssigned(this, "mt-b", List.of(List.of(1, 2), List.of(2, 3), List.of(3, 1)), tcfg,
                        "tiered RF 2 (preferred leader first); 3 segments per partition, 2 copied by the leader");
                List<String> topics = new ArrayList<>(List.of("mt-a", "mt-b"));
                // The metadata partition of a user partition hashes its topic id, which is random:
                // add topics on node 1 until node 1 has both kinds (bounded).
                for (int extra = 0; !placementHasBothKinds(c, topics); extra++) {
                    if (extra == 4) throw new IOException("node 1 never got both kinds of tiered partitions: "
                            + "__remote_log_metadata placement " + c.placement.get("metadata_partitions"));
                    String t = "mt-c" + extra;
                    c.createTopicAssigned(this, t, List.of(List.of(1), List.of(1), List.of(1)), tcfg,
                            "tiered RF 1, all 3 partitions on node 1 (added because node 1 lacked one kind)");
                    topics.add(t);
                }
                try (KafkaProducer<byte[], byte[]> p = c.producer(pcfg("acks", "all"))) {
                    for (String t : topics) {
                        int np = t.equals("mt-a") ? 6 : 3;
                        for (int part = 0; part < np; part++) {
                            for (int s = 0; s < 3; s++) {
                                for (int bi = 0; bi < 2; bi++) {
                                    c.batch(p, t, part, 5, c.t0 + 60 * MIN + s * ROLL + bi * 1000,
                                            Ctx.keys(t + "-" + part + "-", 5), 80, false);
                                }
                            }
                        }
                    }
                }
                for (String t : topics) {
                    int np = t.equals("mt-a") ? 6 : 3;
                    for (int part = 0; part < np; part++) {
                        final int fp = part;
                        c.waitUntil(t + "-" + part + " copied up to 19", () -> c.latestTiered(t, fp) == 19);
                    }
                }
                placementHasBothKinds(c, topics);
                Path md = c.b.logDir.resolve("__cluster_metadata-0");
                c.waitUntil("a metadata snapshot on node 1 besides the bootstrap one", () -> {
                    try (Stream<Path> st = Files.list(md)) {
                        return st.filter(q -> q.getFileName().toString().endsWith(".checkpoint")).count() >= 2;
                    }
                });
            }
        };
    }

    /**
     * Fills ctx.placement (case.json) from Kafka's own partitioner
     * (RemoteLogMetadataTopicPartitioner: murmur2 of the TopicIdPartition, mod the partition count)
     * and DescribeTopics; true when node 1 hosts a tiered partition whose metadata partition is on
     * another node and one whose metadata partition it holds.
     */
    static boolean placementHasBothKinds(Ctx c, List<String> topics) throws Exception {
        org.apache.kafka.server.log.remote.metadata.storage.RemoteLogMetadataTopicPartitioner part =
                new org.apache.kafka.server.log.remote.metadata.storage.RemoteLogMetadataTopicPartitioner(
                        Broker.RLMM_PARTITIONS);
        List<String> all = new ArrayList<>(topics);
        all.add("__remote_log_metadata");
        Map<String, org.apache.kafka.clients.admin.TopicDescription> d;
        try (Admin a = c.cl.admin()) {
            d = a.describeTopics(all).allTopicNames().get(c.timeoutMs, TimeUnit.MILLISECONDS);
        }
        Map<Integer, Integer> mdLeader = new java.util.TreeMap<>();
        List<Object> mdParts = new ArrayList<>();
        for (org.apache.kafka.common.TopicPartitionInfo pi : d.get("__remote_log_metadata").partitions()) {
            mdLeader.put(pi.partition(), pi.leader().id());
            mdParts.add(Json.obj("partition", pi.partition(), "leader", pi.leader().id(),
                    "replicas", pi.replicas().stream().map(org.apache.kafka.common.Node::id).collect(Collectors.toList())));
        }
        List<Object> parts = new ArrayList<>();
        Map<String, Map<String, List<String>>> perNode = new java.util.TreeMap<>();
        for (int id : c.cl.ids()) {
            Map<String, List<String>> m = new LinkedHashMap<>();
            m.put("tiered_partitions", new ArrayList<>());
            m.put("metadata_here", new ArrayList<>());
            m.put("metadata_elsewhere", new ArrayList<>());
            perNode.put(Integer.toString(id), m);
        }
        for (String t : topics) {
            org.apache.kafka.clients.admin.TopicDescription td = d.get(t);
            for (org.apache.kafka.common.TopicPartitionInfo pi : td.partitions()) {
                int mp = part.metadataPartition(new org.apache.kafka.common.TopicIdPartition(td.topicId(),
                        new TopicPartition(t, pi.partition())));
                int holder = mdLeader.get(mp);
                List<Integer> reps = pi.replicas().stream().map(org.apache.kafka.common.Node::id)
                        .collect(Collectors.toList());
                String tp = t + "-" + pi.partition();
                for (int r : reps) {
                    Map<String, List<String>> m = perNode.get(Integer.toString(r));
                    m.get("tiered_partitions").add(tp);
                    m.get(r == holder ? "metadata_here" : "metadata_elsewhere").add(tp);
                }
                parts.add(Json.obj("topic", t, "partition", pi.partition(), "topic_id", td.topicId().toString(),
                        "leader", pi.leader() == null ? null : pi.leader().id(), "replicas", reps,
                        "metadata_partition", mp, "metadata_partition_node", holder));
            }
        }
        c.placement.put("partitioner", "org.apache.kafka.server.log.remote.metadata.storage."
                + "RemoteLogMetadataTopicPartitioner(" + Broker.RLMM_PARTITIONS + ").metadataPartition(TopicIdPartition)");
        c.placement.put("metadata_partitions", mdParts);
        c.placement.put("partitions", parts);
        c.placement.put("per_node", perNode);
        Map<String, List<String>> n1 = perNode.get("1");
        return !n1.get("metadata_here").isEmpty() && !n1.get("metadata_elsewhere").isEmpty();
    }
}
