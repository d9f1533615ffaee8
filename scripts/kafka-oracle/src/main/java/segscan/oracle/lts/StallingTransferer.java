package segscan.oracle.lts;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;

import org.apache.kafka.server.log.remote.storage.Transferer;

import segscan.oracle.Stall;

/**
 * A {@code transferer.class} for Kafka's own {@code LocalTieredStorage} (kafka-storage test jar)
 * that holds a copy on the test's command ({@link Stall}: before the segment's {@code .log}, or
 * after it and before the first index). Otherwise it copies as Kafka's default transferer does:
 * a file only if its source exists, the leader-epoch buffer only if it is not empty.
 *
 * <p>LocalTieredStorage writes a segment's files in the order log, index, timeindex, [txnindex],
 * leader_epoch_checkpoint, snapshot (RemoteLogSegmentFileset.copy), into
 * {@code <dir>/kafka-tiered-storage/<topic>-<partition>-<topicId>/<offset %020d>-<segmentId>.<ext>}.
 */
public final class StallingTransferer implements Transferer {
    @Override
    public void transfer(File from, File to) throws IOException {
        hold(to);
        if (from.exists()) Files.copy(from.toPath(), to.toPath());
    }

    @Override
    public void transfer(ByteBuffer from, File to) throws IOException {
        hold(to);
        if (from != null && from.hasRemaining()) {
            try (FileOutputStream out = new FileOutputStream(to, false); FileChannel ch = out.getChannel()) {
                ch.write(from);
            }
        }
    }

    private static void hold(File to) throws IOException {
        String name = to.getName();
        int dot = name.lastIndexOf('.');
        String stem = dot < 0 ? name : name.substring(0, dot);
        String point;
        if (name.endsWith(".log")) {
            point = "before-log";
        } else {
            // after-log: once per segment, before the first file after its .log
            File[] done = to.getParentFile().listFiles((d, n) -> n.startsWith(stem + ".") && !n.endsWith(".log"));
            if (!new File(to.getParentFile(), stem + ".log").exists() || (done != null && done.length > 0)) return;
            point = "after-log";
        }
        String pdir = to.getParentFile().getName();   // <topic>-<partition>-<22-char topic id>
        String tp = pdir.length() > 23 ? pdir.substring(0, pdir.length() - 23) : pdir;
        Stall.maybeStall(point, tp, name, to.getAbsolutePath());
    }
}
