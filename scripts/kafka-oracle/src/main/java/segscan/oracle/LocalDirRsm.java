package segscan.oracle;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

/**
 * A minimal RemoteStorageManager that keeps every uploaded segment in a local directory.
 *
 * <p>Layout (documented in docs/conformance.md, read by the fixtures' consumers):
 * {@code <dir>/<topic>-<partition>/<startOffset %020d>-<segmentId>.<ext>} with ext one of
 * {@code log, index, timeindex, txnindex, snapshot, leader-epoch-checkpoint}. The segment id is
 * Kafka's {@code Uuid.toString()} (base64url), the same text as {@code segment_id} in
 * remote-metadata.json, so a remote segment can be matched to its files by name alone.
 *
 * <p>Kafka 4.4.0 publishes no test jar (where LocalTieredStorage lives), hence this class. It is
 * deliberately dumb: no custom metadata, no caching, files are written to a temporary name and
 * renamed so a crash mid-copy never leaves a plausible-looking partial segment behind.
 */
public final class LocalDirRsm implements RemoteStorageManager {
    /** Config key, given to the broker as {@code rsm.config.dir}. */
    public static final String DIR_CONFIG = "dir";

    private volatile Path root;

    @Override
    public void configure(Map<String, ?> configs) {
        Object dir = configs.get(DIR_CONFIG);
        if (dir == null) {
            throw new IllegalArgumentException("LocalDirRsm needs rsm.config." + DIR_CONFIG);
        }
        root = Paths.get(dir.toString());
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create remote dir " + root, e);
        }
    }

    private Path base(RemoteLogSegmentMetadata md) {
        TopicIdPartition tip = md.remoteLogSegmentId().topicIdPartition();
        Path dir = root.resolve(tip.topic() + "-" + tip.partition());
        String name = String.format("%020d-%s", md.startOffset(), md.remoteLogSegmentId().id());
        return dir.resolve(name);
    }

    private static Path withExt(Path base, String ext) {
        return base.resolveSibling(base.getFileName() + "." + ext);
    }

    private static void put(Path src, Path dst) throws IOException {
        Path tmp = dst.resolveSibling(dst.getFileName() + ".tmp");
        Files.copy(src, tmp, StandardCopyOption.REPLACE_EXISTING);
        Files.move(tmp, dst, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(
            RemoteLogSegmentMetadata md, LogSegmentData data) throws RemoteStorageException {
        Path b = base(md);
        try {
            // A test's stall (Stall, -Dsegscan.stall.dir): held before anything is written.
            TopicIdPartition tip = md.remoteLogSegmentId().topicIdPartition();
            Stall.maybeStall("before-log", tip.topic() + "-" + tip.partition(), b.getFileName() + ".log",
                    withExt(b, "log").toAbsolutePath().toString());
            Files.createDirectories(b.getParent());
            put(data.offsetIndex(), withExt(b, "index"));
            put(data.timeIndex(), withExt(b, "timeindex"));
            if (data.transactionIndex().isPresent()) {
                put(data.transactionIndex().get(), withExt(b, "txnindex"));
            }
            put(data.producerSnapshotIndex(), withExt(b, "snapshot"));
            Path epochs = withExt(b, "leader-epoch-checkpoint");
            Path tmp = epochs.resolveSibling(epochs.getFileName() + ".tmp");
            byte[] bytes = new byte[data.leaderEpochIndex().remaining()];
            data.leaderEpochIndex().duplicate().get(bytes);
            Files.write(tmp, bytes);
            Files.move(tmp, epochs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            // The .log goes last: its presence is what marks a complete upload in this layout.
            put(data.logSegment(), withExt(b, "log"));
        } catch (IOException e) {
            throw new RemoteStorageException("copy of " + md.remoteLogSegmentId() + " failed", e);
        }
        return Optional.empty();
    }

    private static InputStream range(Path p, long start, long endInclusive) throws RemoteStorageException {
        try {
            RandomAccessFile f = new RandomAccessFile(p.toFile(), "r");
            FileChannel ch = f.getChannel();
            long size = ch.size();
            long end = Math.min(endInclusive, size - 1);
            if (start >= size || end < start) {
                f.close();
                return new ByteArrayInputStream(new byte[0]);
            }
            ch.position(start);
            InputStream in = Channels.newInputStream(ch);
            long len = end - start + 1;
            return new InputStream() {
                private long left = len;

                @Override
                public int read() throws IOException {
                    if (left <= 0) return -1;
                    int c = in.read();
                    if (c >= 0) left--;
                    return c;
                }

                @Override
                public int read(byte[] buf, int off, int n) throws IOException {
                    if (left <= 0) return -1;
                    int r = in.read(buf, off, (int) Math.min(n, left));
                    if (r > 0) left -= r;
                    return r;
                }

                @Override
                public void close() throws IOException {
                    f.close();
                }
            };
        } catch (NoSuchFileException e) {
            throw new RemoteStorageException("missing " + p, e);
        } catch (IOException e) {
            throw new RemoteStorageException("cannot read " + p, e);
        }
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata md, int startPosition) throws RemoteStorageException {
        return range(withExt(base(md), "log"), startPosition, Long.MAX_VALUE - 1);
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata md, int startPosition, int endPosition)
            throws RemoteStorageException {
        return range(withExt(base(md), "log"), startPosition, endPosition);
    }

    @Override
    public InputStream fetchIndex(RemoteLogSegmentMetadata md, IndexType type) throws RemoteStorageException {
        String ext;
        switch (type) {
            case OFFSET: ext = "index"; break;
            case TIMESTAMP: ext = "timeindex"; break;
            case TRANSACTION: ext = "txnindex"; break;
            case PRODUCER_SNAPSHOT: ext = "snapshot"; break;
            case LEADER_EPOCH: ext = "leader-epoch-checkpoint"; break;
            default: throw new RemoteStorageException("unknown index type " + type);
        }
        Path p = withExt(base(md), ext);
        if (type == IndexType.TRANSACTION && !Files.exists(p)) {
            // Kafka treats a missing transaction index as "no aborted transactions".
            throw new org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException(
                    "no transaction index for " + md.remoteLogSegmentId());
        }
        return range(p, 0, Long.MAX_VALUE - 1);
    }

    @Override
    public void deleteLogSegmentData(RemoteLogSegmentMetadata md) throws RemoteStorageException {
        Path b = base(md);
        try {
            // Delete the .log first so a half-deleted segment no longer looks complete.
            for (String ext : new String[] {"log", "index", "timeindex", "txnindex", "snapshot",
                                            "leader-epoch-checkpoint"}) {
                Files.deleteIfExists(withExt(b, ext));
            }
        } catch (IOException e) {
            throw new RemoteStorageException("delete of " + md.remoteLogSegmentId() + " failed", e);
        }
    }

    @Override
    public void close() {
    }
}
