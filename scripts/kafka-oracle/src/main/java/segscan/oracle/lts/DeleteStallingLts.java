package segscan.oracle.lts;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.server.log.remote.storage.LocalTieredStorage;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

import segscan.oracle.Stall;

/**
 * Kafka's own {@code LocalTieredStorage} (kafka-storage test jar) with two changes to its
 * deletes, for the KAFKA-21098 scenario (Scenario {@code --delete-stall}); every other call goes
 * to it unchanged, so the store layout and the copies are Kafka's.
 * <ul>
 *   <li>A delete can be held on a test's command ({@link Stall#maybeStallDelete}), as an object
 *       store's slow DeleteObjects call holds the expiration thread, while the test moves the
 *       partition's leadership. Kafka then cancels the expiration task and interrupts its
 *       thread; the held delete finishes once released, whatever the interrupt (the store call
 *       is not interruptible and the interrupt is not passed on: what an RSM that retries
 *       internally does), and returns normally, so Kafka's pass goes on past the move.</li>
 *   <li>A delete of a segment none of whose files remain succeeds: the RSM contract asks
 *       deletes to be idempotent ("If resources are not found, it is not expected to throw"),
 *       and LocalTieredStorage 4.3.1 throws "Failed to delete remote log segment" instead.
 *       After a move both the old leader (its held delete) and the new one (retrying the
 *       segment left in DELETE_SEGMENT_STARTED) delete the same segment.</li>
 * </ul>
 * The node's broker id (Kafka passes broker.id to the RSM's configure) selects the held deletes.
 */
public final class DeleteStallingLts implements RemoteStorageManager {
    private final LocalTieredStorage lts = new LocalTieredStorage();
    private volatile File store;
    private volatile int brokerId = -1;

    @Override
    public void configure(Map<String, ?> configs) {
        lts.configure(configs);
        Object dir = configs.get(LocalTieredStorage.STORAGE_DIR_CONFIG);
        if (dir != null) store = new File(dir.toString(), "kafka-tiered-storage");
        Object id = configs.get("broker.id");
        if (id != null) brokerId = Integer.parseInt(id.toString());
    }

    @Override
    public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(RemoteLogSegmentMetadata m, LogSegmentData d)
            throws RemoteStorageException {
        return lts.copyLogSegmentData(m, d);
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata m, int start) throws RemoteStorageException {
        return lts.fetchLogSegment(m, start);
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata m, int start, int end) throws RemoteStorageException {
        return lts.fetchLogSegment(m, start, end);
    }

    @Override
    public InputStream fetchIndex(RemoteLogSegmentMetadata m, IndexType t) throws RemoteStorageException {
        return lts.fetchIndex(m, t);
    }

    @Override
    public void deleteLogSegmentData(RemoteLogSegmentMetadata m) throws RemoteStorageException {
        String tp = m.topicIdPartition().topic() + "-" + m.topicIdPartition().partition();
        String id = m.remoteLogSegmentId().id().toString();
        try {
            Stall.maybeStallDelete(brokerId, tp, id, m.remoteLogSegmentId() + " of " + tp + " on broker " + brokerId);
        } catch (IOException e) {
            throw new RemoteStorageException(e);
        }
        if (!anyFileOf(m, id)) return;   // deleted by an earlier attempt (see the class comment)
        lts.deleteLogSegmentData(m);
    }

    /** Whether the store still holds a file of the segment: <offset %020d>-<segment id>.<ext>. */
    private boolean anyFileOf(RemoteLogSegmentMetadata m, String id) {
        if (store == null) return true;
        File pdir = new File(store, m.topicIdPartition().topic() + "-" + m.topicIdPartition().partition() + "-"
                + m.topicIdPartition().topicId());
        String[] hit = pdir.list((d, n) -> n.contains("-" + id + "."));
        return hit != null && hit.length > 0;
    }

    @Override
    public void close() throws IOException {
        lts.close();
    }
}
