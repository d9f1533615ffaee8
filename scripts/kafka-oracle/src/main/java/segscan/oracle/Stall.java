package segscan.oracle;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * Copies held inside the RSM on a test's command, so a segment stays COPY_SEGMENT_STARTED (the
 * copier thread blocked in {@code copyLogSegmentData}, as with a hung object store: Aiven
 * tiered-storage #820) while the test looks. Used by {@code lts.StallingTransferer} (Kafka's
 * LocalTieredStorage, as its transferer.class) and by {@link LocalDirRsm}.
 *
 * <p>Controlled through files in the directory named by the broker JVM's system property
 * {@code segscan.stall.dir} (the harness sets it on every node), so the test needs no connection
 * to the broker:
 * <ul>
 *   <li>{@code stall}: while it exists, matching copies block. Lines (all optional):
 *       {@code point=before-log} (default: before the segment's {@code .log} is written, so the
 *       store holds nothing of it yet) or {@code point=after-log} (LocalTieredStorage only: after
 *       the {@code .log}, before its indexes: a torn upload if the broker is killed then); any
 *       number of {@code partition=<topic>-<partition>} (none: every partition).</li>
 *   <li>{@code stalled/<name>}: written by each blocked copy while it waits (content: what it was
 *       writing), removed when it goes on: how the test knows a copy is being held.</li>
 * </ul>
 * Removing {@code stall} releases every blocked copy. A wait gives up after
 * {@code segscan.stall.max.ms} (default 20 min) and goes on, so a forgotten stall cannot hang a
 * broker for ever; an interrupt (Kafka cancels the copy task on a leadership change) ends it with
 * an {@link InterruptedIOException}.
 */
public final class Stall {
    private Stall() {
    }

    /** The control directory, null when stalling is off for this JVM. */
    public static Path dir() {
        String d = System.getProperty("segscan.stall.dir");
        return d == null ? null : Paths.get(d);
    }

    /**
     * Blocks while the stall file exists and matches point and tp (topic-partition); name names
     * the marker; what is written into it.
     */
    public static void maybeStall(String point, String tp, String name, String what) throws IOException {
        Path dir = dir();
        if (dir == null) return;
        List<String> rules;
        try {
            rules = Files.readAllLines(dir.resolve("stall"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return;   // no stall file: copy at once
        }
        String want = "before-log";
        List<String> parts = new ArrayList<>();
        for (String l : rules) {
            l = l.trim();
            if (l.startsWith("point=")) want = l.substring(6);
            else if (l.startsWith("partition=")) parts.add(l.substring(10));
        }
        if (!want.equals(point) || (!parts.isEmpty() && !parts.contains(tp))) return;
        Path marker = dir.resolve("stalled").resolve(name);
        Files.createDirectories(marker.getParent());
        Files.write(marker, what.getBytes(StandardCharsets.UTF_8));
        long deadline = System.currentTimeMillis() + Long.getLong("segscan.stall.max.ms", 20 * 60_000L);
        try {
            while (Files.exists(dir.resolve("stall")) && System.currentTimeMillis() < deadline) Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("stalled copy " + name + " interrupted");
        } finally {
            Files.deleteIfExists(marker);
        }
    }

    /**
     * Deletes held inside the RSM (lts.DeleteStallingLts, Scenario {@code --delete-stall}), per
     * broker: while the file {@code stall-delete.<broker id>} exists, that broker's deletes of the
     * partitions it names (lines {@code partition=<topic>-<partition>}; none: every partition)
     * block. A held delete writes {@code stalled-delete/<broker id>-<segment id>} (what it
     * deletes) and, once Kafka has interrupted its thread (the expiration task cancelled on a
     * leadership change), {@code interrupted-delete/<broker id>-<segment id>}. It waits until the
     * file is removed (or {@code segscan.stall.max.ms}) whatever the interrupt, then goes on with
     * the interrupt consumed, so the old leader's expiration pass goes on past the move, as it
     * does when its store call ends normally, and leaves {@code released-delete/<broker
     * id>-<segment id>}: the test's event that it did.
     */
    public static void maybeStallDelete(int brokerId, String tp, String segmentId, String what) throws IOException {
        Path dir = dir();
        if (dir == null) return;
        Path ctl = dir.resolve("stall-delete." + brokerId);
        List<String> rules;
        try {
            rules = Files.readAllLines(ctl, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return;   // no stall file for this broker: delete at once
        }
        List<String> parts = new ArrayList<>();
        for (String l : rules) {
            l = l.trim();
            if (l.startsWith("partition=")) parts.add(l.substring(10));
        }
        if (!parts.isEmpty() && !parts.contains(tp)) return;
        String name = brokerId + "-" + segmentId;
        Path marker = dir.resolve("stalled-delete").resolve(name);
        Files.createDirectories(marker.getParent());
        Files.write(marker, what.getBytes(StandardCharsets.UTF_8));
        long deadline = System.currentTimeMillis() + Long.getLong("segscan.stall.max.ms", 20 * 60_000L);
        boolean interrupted = false;
        try {
            while (Files.exists(ctl) && System.currentTimeMillis() < deadline) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    if (!interrupted) {
                        Files.createDirectories(dir.resolve("interrupted-delete"));
                        Files.write(dir.resolve("interrupted-delete").resolve(name), what.getBytes(StandardCharsets.UTF_8));
                    }
                    interrupted = true;
                }
            }
        } finally {
            Files.deleteIfExists(marker);
        }
        Files.createDirectories(dir.resolve("released-delete"));
        Files.write(dir.resolve("released-delete").resolve(name),
                (what + (interrupted ? " (interrupted while held)" : "")).getBytes(StandardCharsets.UTF_8));
    }
}
