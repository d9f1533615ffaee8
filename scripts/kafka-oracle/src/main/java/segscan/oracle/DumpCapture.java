package segscan.oracle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Record-level captures of an existing fixture's log dir for `segscan dump` (issue 12), with no
 * broker: DumpLogSegments runs in this JVM over the committed files (Capture.dump), one run per
 * file, and its lines are parsed into JSON next to the case's other files:
 *
 *   dump-records.json   every .log of every partition, --deep-iteration --print-data-log
 *   dump-decoders.json  the internal topics' .log files with their decoder:
 *                       __consumer_offsets (--offsets-decoder), __transaction_state
 *                       (--transaction-log-decoder), __remote_log_metadata
 *                       (--remote-log-metadata-decoder)
 *
 * (__cluster_metadata's decoder output is cluster-metadata.json, captured with the case.)
 *
 * Usage: java -cp ... segscan.oracle.DumpCapture CASE_DIR...   (CASE_DIR holds logdir/ or
 * logdir-N/). Existing files of the case are not touched.
 */
public final class DumpCapture {
    private DumpCapture() {}

    /* "| offset: 3 CreateTime: 17 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [a,b]<rest>" */
    static final Pattern RECORD = Pattern.compile(
            "(?s)\\| offset: (-?\\d+) (\\w+): (-?\\d+) keySize: (-?\\d+) valueSize: (-?\\d+)"
            + "(?: sequence: (-?\\d+) headerKeys: \\[(.*?)\\])?(.*)");
    static final Pattern MARKER = Pattern.compile(" endTxnMarker: (\\w+) coordinatorEpoch: (-?\\d+)(.*)");
    static final Pattern CONTROL = Pattern.compile(" controlType: (\\w+)\\((-?\\d+)\\)(.*)");
    static final Pattern CONTROL_JSON = Pattern.compile(" (SnapshotHeader|SnapshotFooter|KRaftVersion|KRaftVoters) (\\{.*\\})(.*)");

    static Map<String, Object> record(String line) {
        Matcher m = RECORD.matcher(line);
        if (!m.matches()) return null;
        Map<String, Object> r = Json.obj(
                "offset", Long.valueOf(m.group(1)),
                "timestamp_type", m.group(2),
                "timestamp", Long.valueOf(m.group(3)),
                "key_size", Integer.valueOf(m.group(4)),
                "value_size", Integer.valueOf(m.group(5)));
        if (m.group(6) != null) {
            r.put("sequence", Integer.valueOf(m.group(6)));
            List<Object> keys = new ArrayList<>();
            if (!m.group(7).isEmpty()) for (String k : m.group(7).split(",", -1)) keys.add(k);
            r.put("header_keys", keys);
        }
        String rest = m.group(8);
        Matcher c;
        if ((c = MARKER.matcher(rest)).matches()) {
            r.put("end_txn_marker", c.group(1));
            r.put("coordinator_epoch", Integer.valueOf(c.group(2)));
            rest = c.group(3);
        } else if ((c = CONTROL.matcher(rest)).matches()) {
            r.put("control_type", c.group(1));
            r.put("control_type_id", Integer.valueOf(c.group(2)));
            rest = c.group(3);
        } else if ((c = CONTROL_JSON.matcher(rest)).matches()) {
            r.put("control_type", c.group(1));
            rest = c.group(3);
        }
        // " key: K payload: P", " payload: P" (DumpLogSegments prints the key only when present)
        if (rest.startsWith(" key: ")) {
            int p = rest.indexOf(" payload: ", 6);
            if (p < 0) {
                r.put("key", rest.substring(6));
                rest = "";
            } else {
                r.put("key", rest.substring(6, p));
                rest = rest.substring(p);
            }
        }
        if (rest.startsWith(" payload: ")) {
            r.put("payload", rest.substring(" payload: ".length()));
            rest = "";
        }
        if (!rest.isEmpty()) r.put("unparsed", rest);
        return r;
    }

    static Map<String, Object> dumpFile(Path f, Path root, String... extra) {
        Capture.Dump d = Capture.dump(f, extra);
        List<Object> records = new ArrayList<>();
        List<Object> other = new ArrayList<>();
        long batches = 0;
        // A payload with a line break in it continues on the next captured lines (and
        // Capture.dump drops empty ones): join them back to their record line, marked.
        List<String> lines = new ArrayList<>();
        List<Boolean> joined = new ArrayList<>();
        for (String l : d.out) {
            boolean start = l.startsWith("| offset: ") || l.startsWith("baseOffset: ") || l.startsWith("offset: ")
                    || l.startsWith("Dumping ") || l.startsWith("Log starting offset: ") || l.startsWith("Found ");
            if (!start && !lines.isEmpty() && lines.get(lines.size() - 1).startsWith("| offset: ")) {
                lines.set(lines.size() - 1, lines.get(lines.size() - 1) + "\n" + l);
                joined.set(joined.size() - 1, true);
            } else {
                lines.add(l);
                joined.add(false);
            }
        }
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (l.startsWith("Dumping ") || l.startsWith("Log starting offset: ")) continue;
            if (l.startsWith("baseOffset: ") || l.startsWith("offset: ")) {
                batches++;
                continue;
            }
            Map<String, Object> r = record(l);
            if (r != null && joined.get(i)) r.put("multiline", true);
            if (r != null) records.add(r);
            else other.add(l);
        }
        Map<String, Object> o = Json.obj("file", root.relativize(f).toString(), "batch_lines", batches,
                "records", records);
        if (!other.isEmpty()) o.put("other_output", other);
        if (!d.err.isEmpty()) o.put("stderr", d.err);
        if (d.exception != null) o.put("exception", d.exception);
        return o;
    }

    static List<Path> logDirs(Path caseDir) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(caseDir)) {
            s.filter(p -> Files.isDirectory(p) && p.getFileName().toString().matches("logdir(-\\d+)?"))
                    .sorted().forEach(out::add);
        }
        return out;
    }

    static List<Path> logs(Path logDir) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(logDir, 2)) {
            s.filter(p -> p.getFileName().toString().matches("\\d{20}\\.log")).sorted().forEach(out::add);
        }
        return out;
    }

    static String decoderFor(String dir) {
        if (dir.startsWith("__consumer_offsets-")) return "--offsets-decoder";
        if (dir.startsWith("__transaction_state-")) return "--transaction-log-decoder";
        if (dir.startsWith("__remote_log_metadata-")) return "--remote-log-metadata-decoder";
        return null;
    }

    public static void main(String[] argv) throws IOException {
        for (String a : argv) {
            Path caseDir = Paths.get(a).toAbsolutePath();
            List<Object> recFiles = new ArrayList<>();
            List<Object> decFiles = new ArrayList<>();
            for (Path ld : logDirs(caseDir)) {
                for (Path f : logs(ld)) {
                    String dir = f.getParent().getFileName().toString();
                    if (dir.startsWith("__cluster_metadata")) continue;   // cluster-metadata.json
                    recFiles.add(dumpFile(f, caseDir, "--deep-iteration", "--print-data-log"));
                    String dec = decoderFor(dir);
                    if (dec != null) {
                        Map<String, Object> o = dumpFile(f, caseDir, dec);
                        o.put("decoder", dec);
                        decFiles.add(o);
                    }
                }
            }
            Json.write(caseDir.resolve("dump-records.json"), Json.obj(
                    "tool", "org.apache.kafka.tools.DumpLogSegments",
                    "invocation", "one in-process DumpLogSegments.main(--files F --deep-iteration --print-data-log) per .log",
                    "files", recFiles));
            Json.write(caseDir.resolve("dump-decoders.json"), Json.obj(
                    "tool", "org.apache.kafka.tools.DumpLogSegments",
                    "invocation", "one in-process DumpLogSegments.main(--files F DECODER) per .log of an internal topic",
                    "files", decFiles));
            System.out.println("DumpCapture: " + caseDir.getFileName() + ": " + recFiles.size() + " logs, "
                    + decFiles.size() + " decoded");
        }
    }
}
