package segscan.oracle;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.record.internal.FileLogInputStream;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteMetadata;
import org.apache.kafka.tools.DumpLogSegments;

/** Copies what the broker wrote and records Kafka's own reading of it. */
public final class Capture {
    private Capture() {
    }

    /** The keys of segscan's --topic-config format (docs/contract.md, Topic config file), in that order. */
    static final String[] TOPIC_CONFIG_KEYS = {"retention.ms", "retention.bytes", "local.retention.ms",
        "local.retention.bytes", "remote.storage.enable", "segment.bytes"};
    /** Extra topic configs recorded in case.json because they shape the files. */
    static final String[] TOPIC_CONFIG_EXTRA = {"cleanup.policy", "segment.ms", "segment.index.bytes",
        "index.interval.bytes", "min.cleanable.dirty.ratio", "compression.type", "message.timestamp.type",
        "remote.log.copy.disable", "internal.segment.bytes"};

    // ---------------------------------------------------------------------------------- copy

    /**
     * Copies a directory tree keeping mtimes (Kafka falls back to a segment file's mtime for its
     * largest timestamp when the time index is empty). Files that vanish mid-copy are skipped:
     * a running broker deletes and renames files under us, which is the point of a live copy.
     */
    static void copyTree(Path src, Path dst) throws IOException {
        Files.walkFileTree(src, new SimpleFileVisitor<Path>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Files.createDirectories(dst.resolve(src.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                try {
                    Files.copy(f, dst.resolve(src.relativize(f).toString()), StandardCopyOption.COPY_ATTRIBUTES,
                            StandardCopyOption.REPLACE_EXISTING);
                } catch (NoSuchFileException e) {
                    Oracle.log("  (vanished during copy: " + f + ")");
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) return FileVisitResult.CONTINUE;
                throw e;
            }
        });
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) return;
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted((a, b) -> b.compareTo(a)).collect(Collectors.toList())) Files.delete(q);
        }
    }

    /** path -> {size, mtime_ms} for every file, so a consumer can restore mtimes git drops. */
    static Map<String, Object> manifest(Path root) throws IOException {
        Map<String, Object> m = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path f : s.filter(Files::isRegularFile).collect(Collectors.toList())) {
                BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
                m.put(root.relativize(f).toString(),
                        Json.obj("size", a.size(), "mtime_ms", a.lastModifiedTime().toMillis()));
            }
        }
        return m;
    }

    // ------------------------------------------------------------------------ DumpLogSegments

    /** Result of one in-process DumpLogSegments run over one file. */
    static final class Dump {
        final List<String> out = new ArrayList<>();
        final List<String> err = new ArrayList<>();
        String exception;
    }

    /**
     * Runs {@code org.apache.kafka.tools.DumpLogSegments --files FILE [extra]} in this JVM with
     * System.out/err captured. One file per run so that a throw on one file (a failed sanity
     * check throws) cannot hide the others, and so stderr findings belong to exactly that file.
     */
    static synchronized Dump dump(Path file, String... extra) {
        Dump d = new Dump();
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        ByteArrayOutputStream be = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of("--files", file.toAbsolutePath().toString()));
        args.addAll(List.of(extra));
        try (PrintStream po = new PrintStream(bo, true, StandardCharsets.UTF_8);
             PrintStream pe = new PrintStream(be, true, StandardCharsets.UTF_8)) {
            System.setOut(po);
            System.setErr(pe);
            DumpLogSegments.main(args.toArray(new String[0]));
        } catch (Throwable t) {
            d.exception = t.getClass().getName() + ": " + t.getMessage();
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
        for (String l : bo.toString(StandardCharsets.UTF_8).split("\n")) if (!l.isEmpty()) d.out.add(l);
        // DumpLogSegments names files by absolute path; fixtures must not depend on where the
        // capture ran, so paths inside the captured log dir become "logdir/...".
        Path root = file.toAbsolutePath().getParent().getParent();
        String abs = root.toString() + "/";
        for (String l : be.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!l.isEmpty()) d.err.add(l.replace(abs, "logdir/"));
        }
        d.out.replaceAll(l -> l.replace(abs, "logdir/"));
        if (d.exception != null) d.exception = d.exception.replace(abs, "logdir/");
        return d;
    }

    /** "k1: v1 k2: v2 ..." (DumpLogSegments' line format) into an ordered map of raw strings. */
    static Map<String, String> kv(String line) {
        Map<String, String> m = new LinkedHashMap<>();
        String[] t = line.trim().split("\\s+");
        for (int i = 0; i + 1 < t.length; i++) {
            if (t[i].endsWith(":") && t[i].length() > 1) {
                m.put(t[i].substring(0, t[i].length() - 1), t[i + 1]);
                i++;
            }
        }
        return m;
    }

    private static Object num(String s) {
        if (s == null) return null;
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return s;
        }
    }

    private static final Pattern OPT_LONG = Pattern.compile("OptionalLong\\[(-?\\d+)]");

    static Map<String, Object> batch(Map<String, String> k) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("base_offset", num(k.get("baseOffset")));
        b.put("last_offset", num(k.get("lastOffset")));
        b.put("count", num(k.get("count")));
        b.put("base_sequence", num(k.get("baseSequence")));
        b.put("last_sequence", num(k.get("lastSequence")));
        b.put("producer_id", num(k.get("producerId")));
        b.put("producer_epoch", num(k.get("producerEpoch")));
        b.put("partition_leader_epoch", num(k.get("partitionLeaderEpoch")));
        b.put("is_transactional", Boolean.valueOf(k.get("isTransactional")));
        b.put("is_control", Boolean.valueOf(k.get("isControl")));
        String dh = k.get("deleteHorizonMs");
        Matcher m = dh == null ? null : OPT_LONG.matcher(dh);
        b.put("delete_horizon_ms", m != null && m.matches() ? Long.valueOf(m.group(1)) : null);
        b.put("position", num(k.get("position")));
        String tsType = null;
        for (String t : new String[] {"CreateTime", "LogAppendTime", "NoTimestampType"}) {
            if (k.containsKey(t)) tsType = t;
        }
        b.put("timestamp_type", tsType);
        b.put("max_timestamp", tsType == null ? null : num(k.get(tsType)));
        b.put("size", num(k.get("size")));
        b.put("magic", num(k.get("magic")));
        b.put("compresscodec", k.get("compresscodec"));
        b.put("crc", num(k.get("crc")));
        b.put("is_valid", Boolean.valueOf(k.get("isvalid")));
        return b;
    }

    private static final Pattern TRAILING = Pattern.compile("Found (\\d+) invalid bytes at the end of .*");

    static Map<String, Object> dumpLogFile(Path f) throws IOException {
        Dump d = dump(f);
        List<Object> batches = new ArrayList<>();
        long records = 0;
        long validBytes = 0;
        long trailing = 0;
        boolean allValid = true;
        Long firstOffset = null;
        Long lastOffset = null;
        Long maxTs = null;
        Long startOffset = null;
        List<String> other = new ArrayList<>();
        for (String l : d.out) {
            if (l.startsWith("Dumping ")) continue;
            if (l.startsWith("Log starting offset: ")) {
                startOffset = Long.valueOf(l.substring("Log starting offset: ".length()).trim());
                continue;
            }
            Matcher m = TRAILING.matcher(l);
            if (m.matches()) {
                trailing = Long.parseLong(m.group(1));
                continue;
            }
            if (l.startsWith("baseOffset: ")) {
                Map<String, Object> b = batch(kv(l));
                batches.add(b);
                if (b.get("count") instanceof Long) records += (Long) b.get("count");
                if (b.get("size") instanceof Long) validBytes += (Long) b.get("size");
                if (!Boolean.TRUE.equals(b.get("is_valid"))) allValid = false;
                if (firstOffset == null) firstOffset = (Long) b.get("base_offset");
                lastOffset = (Long) b.get("last_offset");
                Object ts = b.get("max_timestamp");
                if (ts instanceof Long && (maxTs == null || (Long) ts > maxTs)) maxTs = (Long) ts;
                continue;
            }
            other.add(l);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("file", f.getFileName().toString());
        r.put("file_size", Files.size(f));
        r.put("log_starting_offset", startOffset);
        r.put("batch_count", (long) batches.size());
        r.put("record_count", records);
        r.put("first_offset", firstOffset);
        r.put("last_offset", lastOffset);
        r.put("valid_bytes", validBytes);
        r.put("trailing_invalid_bytes", trailing);
        r.put("all_batches_valid", allValid);
        r.put("max_batch_timestamp", maxTs);
        if (!other.isEmpty()) r.put("other_output", other);
        if (!d.err.isEmpty()) r.put("stderr", d.err);
        if (d.exception != null) r.put("exception", d.exception);
        r.put("batches", batches);
        return r;
    }

    /** .index / .timeindex: the entries DumpLogSegments lists, its mismatch reports, and the sanity check. */
    static Map<String, Object> dumpIndexFile(Path f, boolean time) throws IOException {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("file", f.getFileName().toString());
        r.put("file_size", Files.size(f));
        Dump sanity = dump(f, "--index-sanity-check");
        String verdict = null;
        for (String l : sanity.out) {
            if (l.endsWith(" passed sanity check.")) verdict = "passed";
            else if (l.endsWith(" is empty.")) verdict = "empty";
        }
        if (sanity.exception != null) verdict = "failed: " + sanity.exception;
        r.put("sanity_check", verdict == null ? "no verdict" : verdict);
        Dump d = dump(f);
        List<Object> entries = new ArrayList<>();
        boolean empty = false;
        for (String l : d.out) {
            if (l.startsWith("Dumping ")) continue;
            if (l.endsWith(" is empty.")) {
                empty = true;
                continue;
            }
            Map<String, String> k = kv(l);
            if (time && k.containsKey("timestamp")) {
                entries.add(List.of(Long.valueOf(k.get("timestamp")), Long.valueOf(k.get("offset"))));
            } else if (!time && k.containsKey("position")) {
                entries.add(List.of(Long.valueOf(k.get("offset")), Long.valueOf(k.get("position"))));
            }
        }
        r.put("reported_empty", empty);
        r.put("entry_format", time ? "[timestamp, offset]" : "[offset, position]");
        r.put("entries", entries);
        if (!d.err.isEmpty()) r.put("stderr", d.err);
        if (d.exception != null) r.put("exception", d.exception);
        return r;
    }

    static Map<String, Object> dumpTxnIndexFile(Path f) throws IOException {
        Dump d = dump(f);
        List<Object> entries = new ArrayList<>();
        for (String l : d.out) {
            if (l.startsWith("Dumping ")) continue;
            Map<String, String> k = kv(l);
            entries.add(Json.obj("version", num(k.get("version")), "producer_id", num(k.get("producerId")),
                    "first_offset", num(k.get("firstOffset")), "last_offset", num(k.get("lastOffset")),
                    "last_stable_offset", num(k.get("lastStableOffset"))));
        }
        Map<String, Object> r = Json.obj("file", f.getFileName().toString(), "file_size", Files.size(f),
                "aborted_txns", entries);
        if (!d.err.isEmpty()) r.put("stderr", d.err);
        if (d.exception != null) r.put("exception", d.exception);
        return r;
    }

    static Map<String, Object> dumpSnapshotFile(Path f) throws IOException {
        Dump d = dump(f);
        List<Object> entries = new ArrayList<>();
        for (String l : d.out) {
            if (l.startsWith("Dumping ")) continue;
            Map<String, Object> e = new LinkedHashMap<>();
            for (Map.Entry<String, String> k : kv(l).entrySet()) e.put(k.getKey(), num(k.getValue()));
            entries.add(e);
        }
        Map<String, Object> r = Json.obj("file", f.getFileName().toString(), "file_size", Files.size(f),
                "entries", entries);
        if (!d.err.isEmpty()) r.put("stderr", d.err);
        if (d.exception != null) r.put("exception", d.exception);
        return r;
    }

    static final Pattern SEGMENT_FILE = Pattern.compile("(\\d{20})\\.(log|index|timeindex|txnindex|snapshot)");

    /** Kafka's parse of a partition directory name (split at the last '-'). */
    static Object[] topicPartition(String dir) {
        int i = dir.lastIndexOf('-');
        if (i <= 0) return null;
        try {
            return new Object[] {dir.substring(0, i), Integer.valueOf(dir.substring(i + 1))};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** dump.json: every partition directory of the captured log dir, every segment file. */
    static Map<String, Object> dumpLogDir(Path logDir) throws IOException {
        List<Object> parts = new ArrayList<>();
        List<Path> dirs;
        try (Stream<Path> s = Files.list(logDir)) {
            dirs = s.filter(Files::isDirectory).sorted().collect(Collectors.toList());
        }
        for (Path dir : dirs) {
            Object[] tp = topicPartition(dir.getFileName().toString());
            if (tp == null) continue;
            TreeMap<Long, Map<String, Object>> segs = new TreeMap<>();
            List<Object> snapshots = new ArrayList<>();
            List<String> otherFiles = new ArrayList<>();
            List<Path> files;
            try (Stream<Path> s = Files.list(dir)) {
                files = s.sorted().collect(Collectors.toList());
            }
            for (Path f : files) {
                String name = f.getFileName().toString();
                Matcher m = SEGMENT_FILE.matcher(name);
                if (!m.matches()) {
                    otherFiles.add(name);
                    continue;
                }
                long base = Long.parseLong(m.group(1));
                if (m.group(2).equals("snapshot")) {
                    Map<String, Object> sn = dumpSnapshotFile(f);
                    sn.put("offset", base);
                    snapshots.add(sn);
                    continue;
                }
                Map<String, Object> seg = segs.computeIfAbsent(base, b -> Json.obj("base_offset", b));
                switch (m.group(2)) {
                    case "log": seg.put("log", dumpLogFile(f)); break;
                    case "index": seg.put("index", dumpIndexFile(f, false)); break;
                    case "timeindex": seg.put("timeindex", dumpIndexFile(f, true)); break;
                    case "txnindex": seg.put("txnindex", dumpTxnIndexFile(f)); break;
                    default: break;
                }
            }
            // Flatten the .log summary to the segment level: that is what consumers compare.
            List<Object> segList = new ArrayList<>();
            for (Map<String, Object> seg : segs.values()) {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("base_offset", seg.get("base_offset"));
                @SuppressWarnings("unchecked")
                Map<String, Object> log = (Map<String, Object>) seg.get("log");
                if (log != null) {
                    for (String k : new String[] {"file_size", "log_starting_offset", "batch_count", "record_count",
                                                  "first_offset", "last_offset", "valid_bytes",
                                                  "trailing_invalid_bytes", "all_batches_valid",
                                                  "max_batch_timestamp", "other_output", "stderr", "exception"}) {
                        if (log.containsKey(k)) out.put(k, log.get(k));
                    }
                    out.put("batches", log.get("batches"));
                } else {
                    out.put("file_size", null);
                    out.put("note", "no .log file for this base offset");
                }
                out.put("index", seg.get("index"));
                out.put("timeindex", seg.get("timeindex"));
                out.put("txnindex", seg.get("txnindex"));
                segList.add(out);
            }
            parts.add(Json.obj("dir", dir.getFileName().toString(), "topic", tp[0], "partition", tp[1],
                    "other_files", otherFiles, "segments", segList, "producer_snapshots", snapshots));
        }
        return Json.obj("tool", DumpLogSegments.class.getName(),
                "invocation", "one in-process DumpLogSegments.main(--files F) per file, plus "
                        + "--index-sanity-check for .index/.timeindex; shallow (batch-level) iteration",
                "partitions", parts);
    }

    // ---------------------------------------------------------------- KRaft metadata log

    private static final Pattern META_RECORD = Pattern.compile(
            "\\| offset: (-?\\d+) (\\w+): (-?\\d+) keySize: (-?\\d+) valueSize: (-?\\d+)"
                    + "(?: sequence: (-?\\d+) headerKeys: \\[([^\\]]*)\\])?(.*)");
    private static final Pattern CONTROL_JSON = Pattern.compile(" (\\w+):? (\\{.*\\})");
    private static final Pattern CONTROL_TYPE = Pattern.compile(" controlType: (\\w+)\\((-?\\d+)\\)");
    private static final Pattern SNAPSHOT_ID = Pattern.compile("Snapshot end offset: (-?\\d+), epoch: (-?\\d+)");
    /**
     * Kafka's payload JSON for a metadata record, built key by key in this order
     * (DumpLogSegments' ClusterMetadataLogMessageParser: type, version, data) and printed
     * compact; "data" is taken verbatim. No JSON library: Kafka's Jackson is runtime-only here.
     */
    private static final Pattern META_PAYLOAD = Pattern.compile(
            "\\{\"type\":\"(\\w+)\",\"version\":(-?\\d+),\"data\":(\\{.*\\})\\}");

    /**
     * cluster-metadata.json: DumpLogSegments --cluster-metadata-decoder (in this JVM, one run per
     * file, as dump.json) over every .log segment and every .checkpoint snapshot of a
     * __cluster_metadata-0 directory, its output parsed line by line. A metadata record's
     * payload is Kafka's JSON ({"type","version","data"}, MetadataJsonConverters); "data" is kept
     * verbatim as Kafka printed it. Control records (LeaderChange, SnapshotHeader/Footer,
     * KRaftVersion, KRaftVoters) keep their type and, where Kafka prints one, their JSON.
     */
    static Map<String, Object> clusterMetadata(Path dir) throws IOException {
        List<Path> files;
        try (Stream<Path> st = Files.list(dir)) {
            files = st.filter(f -> {
                String n = f.getFileName().toString();
                return n.endsWith(".log") || n.endsWith(".checkpoint");
            }).sorted((a, b) -> {
                // Segments first (by base offset), then snapshots (by end offset): both names are
                // zero-padded, so a name sort within each kind is an offset sort.
                boolean sa = a.getFileName().toString().endsWith(".checkpoint");
                boolean sb = b.getFileName().toString().endsWith(".checkpoint");
                if (sa != sb) return sa ? 1 : -1;
                return a.getFileName().toString().compareTo(b.getFileName().toString());
            }).collect(Collectors.toList());
        }
        List<Object> out = new ArrayList<>();
        for (Path f : files) out.add(clusterMetadataFile(f));
        // Kafka before 4.4 (4.3.1 here) formats the bootstrap records into
        // <log dir>/bootstrap.checkpoint (BootstrapDirectory), a snapshot-format file outside
        // the partition dir; 4.4.0 writes 00000000000000000000-0000000000.checkpoint instead.
        Path boot = dir.getParent().resolve("bootstrap.checkpoint");
        if (Files.isRegularFile(boot)) out.add(clusterMetadataFile(boot));
        return Json.obj("tool", DumpLogSegments.class.getName(),
                "invocation", "one in-process DumpLogSegments.main(--files F --cluster-metadata-decoder) per file",
                "dir", dir.getFileName().toString(),
                "files", out);
    }

    static Map<String, Object> clusterMetadataFile(Path f) throws IOException {
        Dump d = dump(f, "--cluster-metadata-decoder");
        boolean snap = f.getFileName().toString().endsWith(".checkpoint");
        boolean boot = f.getFileName().toString().equals("bootstrap.checkpoint");
        List<Object> batches = new ArrayList<>();
        List<Object> records = new ArrayList<>();
        List<Object> controls = new ArrayList<>();
        List<String> other = new ArrayList<>();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("file", f.getFileName().toString());
        r.put("kind", boot ? "bootstrap" : snap ? "snapshot" : "segment");
        if (boot) r.put("location", "the log dir itself (not __cluster_metadata-0)");
        r.put("file_size", Files.size(f));
        boolean inControl = false;
        for (String l : d.out) {
            if (l.startsWith("Dumping ") || l.equals("KRaft bootstrap snapshot")) continue;
            if (l.startsWith("Log starting offset: ")) {
                r.put("log_starting_offset", Long.valueOf(l.substring("Log starting offset: ".length()).trim()));
                continue;
            }
            Matcher sm = SNAPSHOT_ID.matcher(l);
            if (sm.matches()) {
                r.put("snapshot_end_offset", Long.valueOf(sm.group(1)));
                r.put("snapshot_epoch", Long.valueOf(sm.group(2)));
                continue;
            }
            if (l.startsWith("baseOffset: ")) {
                Map<String, Object> b = batch(kv(l));
                inControl = Boolean.TRUE.equals(b.get("is_control"));
                batches.add(b);
                continue;
            }
            Matcher m = META_RECORD.matcher(l);
            if (m.matches()) {
                long off = Long.parseLong(m.group(1));
                String rest = m.group(8);
                if (inControl) {
                    Map<String, Object> c = new LinkedHashMap<>();
                    c.put("offset", off);
                    Matcher cj = CONTROL_JSON.matcher(rest);
                    Matcher ct = CONTROL_TYPE.matcher(rest);
                    if (cj.matches()) {
                        c.put("type", cj.group(1));
                        c.put("data", new Json.Raw(cj.group(2)));
                    } else if (ct.matches()) {
                        c.put("type", ct.group(1));
                        c.put("type_id", Long.valueOf(ct.group(2)));
                    } else {
                        c.put("type", null);
                        c.put("text", rest.trim());
                    }
                    c.put("value_size", Long.valueOf(m.group(5)));
                    controls.add(c);
                } else {
                    Map<String, Object> rec = new LinkedHashMap<>();
                    rec.put("offset", off);
                    String payload = rest.startsWith(" payload: ") ? rest.substring(" payload: ".length()) : null;
                    Matcher pm = payload == null ? null : META_PAYLOAD.matcher(payload);
                    if (pm != null && pm.matches()) {
                        rec.put("type", pm.group(1));
                        rec.put("version", Long.valueOf(pm.group(2)));
                        rec.put("data", new Json.Raw(pm.group(3)));
                    } else {
                        rec.put("type", null);
                        rec.put("error", payload == null ? rest.trim() : payload);
                    }
                    rec.put("value_size", Long.valueOf(m.group(5)));
                    records.add(rec);
                }
                continue;
            }
            other.add(l);
        }
        if (!other.isEmpty()) r.put("other_output", other);
        if (!d.err.isEmpty()) r.put("stderr", d.err);
        if (d.exception != null) r.put("exception", d.exception);
        r.put("batches", batches);
        r.put("records", records);
        r.put("control_records", controls);
        return r;
    }

    // ------------------------------------------------------------------ cluster view (Admin)

    static String placeholders(String v, Map<String, String> paths) {
        if (v == null) return null;
        for (Map.Entry<String, String> e : paths.entrySet()) v = v.replace(e.getKey(), e.getValue());
        return v;
    }

    /** One DescribeConfigs answer as {name: {value, source, read_only, sensitive, synonyms}}. */
    static Map<String, Object> configMap(Config cfg, Map<String, String> paths) {
        Map<String, Object> m = new TreeMap<>();
        for (ConfigEntry ce : cfg.entries()) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("value", ce.isSensitive() ? null : placeholders(ce.value(), paths));
            e.put("source", ce.source().name());
            e.put("read_only", ce.isReadOnly());
            e.put("sensitive", ce.isSensitive());
            List<Object> syn = new ArrayList<>();
            for (ConfigEntry.ConfigSynonym s : ce.synonyms()) {
                syn.add(Json.obj("name", s.name(), "value", ce.isSensitive() ? null : placeholders(s.value(), paths),
                        "source", s.source().name()));
            }
            e.put("synonyms", syn);
            m.put(ce.name(), e);
        }
        return m;
    }

    /**
     * cluster.json: the cluster as the Admin API describes it at capture time: DescribeCluster,
     * DescribeTopics (every topic, internal ones included), DescribeConfigs with synonyms (every
     * topic, every broker, and the cluster-wide default resource BROKER ""), DescribeFeatures,
     * and each broker's own release (its app-info MBean).
     */
    static Map<String, Object> clusterView(Admin a, List<Broker> brokers) throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        // Absolute paths differ per run: the same placeholders as server.properties.
        Map<String, String> paths = new LinkedHashMap<>();
        for (Broker b : brokers) {
            String sfx = brokers.size() > 1 ? "-" + b.nodeId : "";
            paths.put(b.logDir.toAbsolutePath().toString(), "LOGDIR" + sfx);
            paths.put(b.metaDir.toAbsolutePath().toString(), "METADATADIR" + sfx);
            paths.put(b.remoteDir.toAbsolutePath().toString(), "REMOTEDIR");
        }
        org.apache.kafka.clients.admin.DescribeClusterResult dc = a.describeCluster();
        out.put("cluster_id", dc.clusterId().get(30, TimeUnit.SECONDS));
        org.apache.kafka.common.Node ctl = dc.controller().get(30, TimeUnit.SECONDS);
        List<Object> nodes = new ArrayList<>();
        List<org.apache.kafka.common.Node> ns = new ArrayList<>(dc.nodes().get(30, TimeUnit.SECONDS));
        ns.sort((x, y) -> Integer.compare(x.id(), y.id()));
        for (org.apache.kafka.common.Node n : ns) nodes.add(Json.obj("id", n.id(), "rack", n.rack()));
        if (brokers.size() == 1) out.put("node_id", brokers.get(0).nodeId);
        out.put("node_ids", nodes.stream().map(o -> ((Map<?, ?>) o).get("id")).collect(Collectors.toList()));
        Map<String, Object> bv = new TreeMap<>();
        for (Broker b : brokers) {
            Map<String, Object> ai = b.appInfo();
            bv.put(Integer.toString(b.nodeId), Json.obj("version", ai.get("Version"), "commit_id", ai.get("CommitId"),
                    "start_time_ms", ai.get("StartTimeMs"), "source", "JMX " + ai.get("object_name")));
        }
        if (brokers.size() == 1) out.put("broker_version", ((Map<?, ?>) bv.values().iterator().next()).get("version"));
        out.put("broker_versions", bv);
        out.put("describe_cluster", Json.obj("controller_id", ctl == null ? null : ctl.id(),
                "note", "controller_id: the node an Admin client is told to send controller requests to",
                "nodes", nodes));

        Set<String> names = new TreeSet<>(a.listTopics(new ListTopicsOptions().listInternal(true)).names()
                .get(30, TimeUnit.SECONDS));
        Map<String, TopicDescription> desc = a.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
        Map<String, Object> topics = new TreeMap<>();
        for (String t : names) {
            TopicDescription td = desc.get(t);
            List<Object> parts = new ArrayList<>();
            for (TopicPartitionInfo pi : td.partitions()) {
                parts.add(Json.obj("partition", pi.partition(),
                        "leader", pi.leader() == null || pi.leader().isEmpty() ? null : pi.leader().id(),
                        "replicas", pi.replicas().stream().map(org.apache.kafka.common.Node::id).collect(Collectors.toList()),
                        "isr", pi.isr().stream().map(org.apache.kafka.common.Node::id).collect(Collectors.toList())));
            }
            topics.put(t, Json.obj("topic_id", td.topicId().toString(), "internal", td.isInternal(),
                    "partitions", parts));
        }
        out.put("describe_topics", topics);

        org.apache.kafka.clients.admin.DescribeConfigsOptions syn =
                new org.apache.kafka.clients.admin.DescribeConfigsOptions().includeSynonyms(true);
        List<ConfigResource> res = new ArrayList<>();
        for (String t : names) res.add(new ConfigResource(ConfigResource.Type.TOPIC, t));
        for (Broker b : brokers) res.add(new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(b.nodeId)));
        Map<ConfigResource, Config> cfg = a.describeConfigs(res, syn).all().get(30, TimeUnit.SECONDS);
        Map<String, Object> tc = new TreeMap<>();
        Map<String, Object> bc = new TreeMap<>();
        for (Map.Entry<ConfigResource, Config> e : cfg.entrySet()) {
            if (e.getKey().type() == ConfigResource.Type.TOPIC) tc.put(e.getKey().name(), configMap(e.getValue(), paths));
            else bc.put(e.getKey().name(), configMap(e.getValue(), paths));
        }
        Map<String, Object> dcfg = new LinkedHashMap<>();
        dcfg.put("topics", tc);
        dcfg.put("brokers", bc);
        ConfigResource def = new ConfigResource(ConfigResource.Type.BROKER, "");
        try {
            Config d = a.describeConfigs(List.of(def), syn).all().get(30, TimeUnit.SECONDS).get(def);
            dcfg.put("broker_default", configMap(d, paths));
        } catch (Exception e) {
            dcfg.put("broker_default", null);
            dcfg.put("broker_default_error", e.toString());
        }
        out.put("describe_configs", dcfg);

        org.apache.kafka.clients.admin.FeatureMetadata fm = a.describeFeatures().featureMetadata()
                .get(30, TimeUnit.SECONDS);
        Map<String, Object> fin = new TreeMap<>();
        for (Map.Entry<String, org.apache.kafka.clients.admin.FinalizedVersionRange> e : fm.finalizedFeatures().entrySet()) {
            fin.put(e.getKey(), Json.obj("min_version_level", e.getValue().minVersionLevel(),
                    "max_version_level", e.getValue().maxVersionLevel()));
        }
        Map<String, Object> sup = new TreeMap<>();
        for (Map.Entry<String, org.apache.kafka.clients.admin.SupportedVersionRange> e : fm.supportedFeatures().entrySet()) {
            sup.put(e.getKey(), Json.obj("min_version", e.getValue().minVersion(), "max_version", e.getValue().maxVersion()));
        }
        out.put("features", Json.obj("finalized_features_epoch", fm.finalizedFeaturesEpoch().isPresent()
                        ? fm.finalizedFeaturesEpoch().get() : null,
                "finalized", fin, "supported", sup,
                "note", "supported: of the node that answered DescribeFeatures (any broker)"));
        return out;
    }

    // ------------------------------------------------------------------- remote log metadata

    static final Pattern RLMM_DIR = Pattern.compile("__remote_log_metadata-(\\d+)");

    /**
     * Decodes every record of the captured {@code __remote_log_metadata-N} segments with Kafka's
     * own FileRecords and RemoteLogMetadataSerde. Order: metadata partition, then offset (the
     * broker replays each metadata partition in offset order, and all events of one user
     * partition live in one metadata partition, so this is a valid replay order).
     */
    static List<Map<String, Object>> decodeRemoteMetadata(Path logDir) throws IOException {
        RemoteLogMetadataSerde serde = new RemoteLogMetadataSerde();
        TreeMap<Integer, Path> dirs = new TreeMap<>();
        try (Stream<Path> s = Files.list(logDir)) {
            for (Path p : s.collect(Collectors.toList())) {
                Matcher m = RLMM_DIR.matcher(p.getFileName().toString());
                if (m.matches() && Files.isDirectory(p)) dirs.put(Integer.valueOf(m.group(1)), p);
            }
        }
        List<Map<String, Object>> events = new ArrayList<>();
        for (Map.Entry<Integer, Path> e : dirs.entrySet()) {
            List<Path> logs;
            try (Stream<Path> s = Files.list(e.getValue())) {
                logs = s.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().collect(Collectors.toList());
            }
            for (Path log : logs) {
                try (FileRecords fr = FileRecords.open(log.toFile(), false)) {
                    for (FileLogInputStream.FileChannelRecordBatch b : fr.batches()) {
                        if (b.isControlBatch()) continue;
                        for (Record r : b) {
                            if (!r.hasValue()) continue;
                            ByteBuffer v = r.value();
                            byte[] bytes = new byte[v.remaining()];
                            v.get(bytes);
                            Map<String, Object> ev = event(serde.deserialize(bytes));
                            ev.put("metadata_partition", e.getKey());
                            ev.put("metadata_offset", r.offset());
                            ev.put("metadata_timestamp_ms", r.timestamp());
                            events.add(ev);
                        }
                    }
                }
            }
        }
        return events;
    }

    /** One event in the segscan --remote-state NDJSON shape (docs/contract.md, Remote state file), plus topic_id. */
    static Map<String, Object> event(RemoteLogMetadata md) {
        TopicIdPartition tip = md.topicIdPartition();
        Map<String, Object> ev = new LinkedHashMap<>();
        if (md instanceof RemoteLogSegmentMetadata) {
            RemoteLogSegmentMetadata s = (RemoteLogSegmentMetadata) md;
            Map<String, Object> epochs = new LinkedHashMap<>();
            for (Map.Entry<Integer, Long> en : s.segmentLeaderEpochs().entrySet()) {
                epochs.put(en.getKey().toString(), en.getValue());
            }
            ev.put("type", "segment");
            ev.put("topic", tip.topic());
            ev.put("partition", tip.partition());
            ev.put("topic_id", tip.topicId().toString());
            ev.put("segment_id", s.remoteLogSegmentId().id().toString());
            ev.put("start_offset", s.startOffset());
            ev.put("end_offset", s.endOffset());
            ev.put("leader_epochs", epochs);
            ev.put("size_bytes", s.segmentSizeInBytes());
            ev.put("max_timestamp_ms", s.maxTimestampMs());
            ev.put("broker_id", s.brokerId());
            ev.put("event_timestamp_ms", s.eventTimestampMs());
            ev.put("state", s.state().name());
            ev.put("txn_index_empty", s.isTxnIdxEmpty());
            ev.put("custom_metadata_bytes", s.customMetadata().map(c -> c.value().length).orElse(null));
        } else if (md instanceof RemoteLogSegmentMetadataUpdate) {
            RemoteLogSegmentMetadataUpdate u = (RemoteLogSegmentMetadataUpdate) md;
            ev.put("type", "update");
            ev.put("topic", tip.topic());
            ev.put("partition", tip.partition());
            ev.put("topic_id", tip.topicId().toString());
            ev.put("segment_id", u.remoteLogSegmentId().id().toString());
            ev.put("state", u.state().name());
            ev.put("broker_id", u.brokerId());
            ev.put("event_timestamp_ms", u.eventTimestampMs());
            ev.put("custom_metadata_bytes", u.customMetadata().map(c -> c.value().length).orElse(null));
        } else if (md instanceof RemotePartitionDeleteMetadata) {
            RemotePartitionDeleteMetadata d = (RemotePartitionDeleteMetadata) md;
            ev.put("type", "partition_delete");
            ev.put("topic", tip.topic());
            ev.put("partition", tip.partition());
            ev.put("topic_id", tip.topicId().toString());
            ev.put("state", d.state().name());
            ev.put("broker_id", d.brokerId());
            ev.put("event_timestamp_ms", d.eventTimestampMs());
        } else {
            ev.put("type", "unknown:" + md.getClass().getName());
            ev.put("topic", tip.topic());
            ev.put("partition", tip.partition());
            ev.put("broker_id", md.brokerId());
            ev.put("event_timestamp_ms", md.eventTimestampMs());
        }
        return ev;
    }

    /** The contract's fields only, for segscan --remote-state. */
    static final Set<String> CONTRACT_FIELDS = Set.of("type", "topic", "partition", "topic_id", "segment_id",
            "start_offset", "end_offset", "leader_epochs", "size_bytes", "max_timestamp_ms", "broker_id",
            "event_timestamp_ms", "state");

    static String remoteStateNdjson(List<Map<String, Object>> events) {
        StringBuilder sb = new StringBuilder();
        for (Map<String, Object> ev : events) {
            Map<String, Object> c = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : ev.entrySet()) {
                if (CONTRACT_FIELDS.contains(e.getKey())) c.put(e.getKey(), e.getValue());
            }
            sb.append(Json.line(c)).append('\n');
        }
        return sb.toString();
    }

    /** Remote store listing: the RSM's files (name, size), bytes not copied into fixtures. */
    static List<Object> remoteFiles(Path remoteDir) throws IOException {
        List<Object> out = new ArrayList<>();
        if (!Files.exists(remoteDir)) return out;
        try (Stream<Path> s = Files.walk(remoteDir)) {
            for (Path f : s.filter(Files::isRegularFile).sorted().collect(Collectors.toList())) {
                out.add(Json.obj("path", remoteDir.relativize(f).toString(), "size", Files.size(f)));
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ admin-side state

    /**
     * What the running broker answers over the Admin API: per partition the log start offset
     * (EARLIEST), log end offset (LATEST), local log start (EARLIEST_LOCAL, KIP-1005) and
     * highestOffsetInRemoteStorage (LATEST_TIERED, KIP-1005; -1 when nothing is tiered), plus
     * DescribeLogDirs' per-partition size; and every topic's effective configs.
     */
    static Map<String, Object> adminView(Admin a, Map<String, Map<String, String>> configsOut) throws Exception {
        return adminView(a, configsOut, List.of(Broker.NODE_ID));
    }

    /**
     * Several brokers: DescribeLogDirs of each; {@code log_dir_size_bytes}/{@code log_dir_offset_lag}
     * are the leader's replica's, and {@code replica_log_dirs} lists every replica's
     * ({"broker id": {size_bytes, offset_lag}}). One broker: exactly the single-node fields.
     */
    static Map<String, Object> adminView(Admin a, Map<String, Map<String, String>> configsOut, List<Integer> brokerIds)
            throws Exception {
        Set<String> names = new TreeSet<>(a.listTopics(new ListTopicsOptions().listInternal(true)).names()
                .get(30, TimeUnit.SECONDS));
        Map<String, TopicDescription> desc = a.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
        List<TopicPartition> tps = new ArrayList<>();
        for (String t : names) {
            for (TopicPartitionInfo pi : desc.get(t).partitions()) tps.add(new TopicPartition(t, pi.partition()));
        }
        Map<String, OffsetSpec> specs = new LinkedHashMap<>();
        specs.put("earliest", OffsetSpec.earliest());
        specs.put("latest", OffsetSpec.latest());
        specs.put("earliest_local", OffsetSpec.earliestLocal());
        specs.put("latest_tiered", OffsetSpec.latestTiered());
        specs.put("max_timestamp", OffsetSpec.maxTimestamp());
        Map<TopicPartition, Map<String, Object>> per = new LinkedHashMap<>();
        for (TopicPartition tp : tps) per.put(tp, new LinkedHashMap<>());
        for (Map.Entry<String, OffsetSpec> s : specs.entrySet()) {
            Map<TopicPartition, OffsetSpec> req = new HashMap<>();
            for (TopicPartition tp : tps) req.put(tp, s.getValue());
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> res =
                    a.listOffsets(req).all().get(30, TimeUnit.SECONDS);
            for (TopicPartition tp : tps) {
                ListOffsetsResult.ListOffsetsResultInfo i = res.get(tp);
                if (s.getKey().equals("max_timestamp")) {
                    per.get(tp).put("max_timestamp_offset", i.offset());
                    per.get(tp).put("max_timestamp_ms", i.timestamp());
                } else {
                    per.get(tp).put(s.getKey() + "_offset", i.offset());
                }
            }
        }
        Map<Integer, Map<String, LogDirDescription>> dirs = a.describeLogDirs(brokerIds)
                .allDescriptions().get(30, TimeUnit.SECONDS);
        boolean multi = brokerIds.size() > 1;
        for (int id : brokerIds) {
            for (LogDirDescription ld : dirs.getOrDefault(id, Map.of()).values()) {
                for (Map.Entry<TopicPartition, ReplicaInfo> r : ld.replicaInfos().entrySet()) {
                    Map<String, Object> m = per.get(r.getKey());
                    if (m == null) continue;
                    TopicPartitionInfo pi = desc.get(r.getKey().topic()).partitions().get(r.getKey().partition());
                    if (!multi || (pi.leader() != null && pi.leader().id() == id)) {
                        m.put("log_dir_size_bytes", r.getValue().size());
                        m.put("log_dir_offset_lag", r.getValue().offsetLag());
                    }
                    if (multi) {
                        @SuppressWarnings("unchecked")
                        Map<String, Object> rl = (Map<String, Object>) m.computeIfAbsent("replica_log_dirs",
                                k -> new TreeMap<String, Object>());
                        rl.put(Integer.toString(id), Json.obj("size_bytes", r.getValue().size(),
                                "offset_lag", r.getValue().offsetLag()));
                    }
                }
            }
        }
        List<Object> parts = new ArrayList<>();
        for (Map.Entry<TopicPartition, Map<String, Object>> e : per.entrySet()) {
            TopicDescription td = desc.get(e.getKey().topic());
            TopicPartitionInfo pi = td.partitions().get(e.getKey().partition());
            Map<String, Object> m = Json.obj("topic", e.getKey().topic(), "partition", e.getKey().partition(),
                    "topic_id", td.topicId().toString(), "leader", pi.leader() == null ? null : pi.leader().id());
            m.putAll(e.getValue());
            parts.add(m);
        }
        List<ConfigResource> res = new ArrayList<>();
        for (String t : names) res.add(new ConfigResource(ConfigResource.Type.TOPIC, t));
        Map<ConfigResource, Config> cfg = a.describeConfigs(res).all().get(30, TimeUnit.SECONDS);
        for (Map.Entry<ConfigResource, Config> e : cfg.entrySet()) {
            Map<String, String> m = new TreeMap<>();
            for (ConfigEntry ce : e.getValue().entries()) m.put(ce.name(), ce.value());
            configsOut.put(e.getKey().name(), m);
        }
        return Json.obj("partitions", parts);
    }

    /** topic-config.txt in segscan's --topic-config format, from the broker's effective configs. */
    static String topicConfigText(Map<String, Map<String, String>> cfg, Map<String, String> brokerDefaults) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Effective topic configs as reported by the broker (DescribeConfigs) at capture time.\n");
        sb.append("# '*' = the broker-wide defaults these topics fall back to.\n");
        sb.append("*");
        for (String k : TOPIC_CONFIG_KEYS) {
            String v = brokerDefaults.get(k);
            if (v != null) sb.append(' ').append(k).append('=').append(v);
        }
        sb.append('\n');
        for (Map.Entry<String, Map<String, String>> e : new TreeMap<>(cfg).entrySet()) {
            sb.append(e.getKey());
            for (String k : TOPIC_CONFIG_KEYS) {
                String v = e.getValue().get(k);
                if (v != null) sb.append(' ').append(k).append('=').append(v);
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    static long dirBytes(Path p) throws IOException {
        if (!Files.exists(p)) return 0;
        try (Stream<Path> s = Files.walk(p)) {
            long n = 0;
            for (Path f : s.filter(Files::isRegularFile).collect(Collectors.toList())) n += Files.size(f);
            return n;
        }
    }
}
