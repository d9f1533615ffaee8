package segscan.oracle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.common.Uuid;

/**
 * A KRaft cluster of several nodes on loopback, one child JVM per node: node 1 is a combined
 * controller+broker (the only voter, so the quorum is up as soon as it is), nodes 2..n are
 * brokers only. Every node has tiered storage on and all of them share one RSM directory
 * ({@code work/remote}), as brokers of a real cluster share one object store; each node has
 * its own {@code work/node-<id>/logdir}. Node 1 keeps its KRaft metadata log inside it
 * (metadata.log.dir unset: Kafka's default layout), so its log dir alone carries the cluster's
 * metadata; nodes 2..n use a separate {@code work/node-<id>/metadata} (a dedicated
 * metadata.log.dir, the other common layout), which also keeps each copied log dir free of the
 * 20 MiB of preallocated index zeros a 4.4 metadata log's active segment carries.
 *
 * <p>Reusable: {@link #start} formats and starts everything and returns once every node is
 * registered and {@code __remote_log_metadata} exists with every partition led; {@link #close}
 * kills what is left. The multi-broker case and the live-cluster tests both use it.
 */
public final class Cluster implements AutoCloseable {
    final Path work;
    final Path remoteDir;
    final String clusterId;
    final List<Broker> nodes = new ArrayList<>();
    final long timeoutMs;
    /** Every node also gets a SASL_PLAINTEXT listener (Broker.Options.sasl). */
    boolean sasl;
    private java.util.function.Consumer<Broker.Options> custom;

    private Cluster(Path work, long timeoutMs) {
        this.work = work;
        this.remoteDir = work.resolve("remote");
        this.clusterId = Uuid.randomUuid().toString();
        this.timeoutMs = timeoutMs;
    }

    /**
     * Formats and starts an n-node cluster under work. extra = static broker configs for every
     * node (applied after the harness's own). The brokers-only nodes are launched first so they
     * are registering when the controller comes up: then the first __remote_log_metadata
     * creation (by whichever node's RLMM gets there first) sees every broker unfenced and the
     * controller stripes its partitions over all of them rather than putting them all on node 1.
     */
    static Cluster start(Path work, long timeoutMs, int n, Map<String, String> extra) throws Exception {
        return start(work, timeoutMs, n, extra, false);
    }

    static Cluster start(Path work, long timeoutMs, int n, Map<String, String> extra, boolean sasl) throws Exception {
        return start(work, timeoutMs, n, extra, sasl, null);
    }

    /**
     * As above; custom (may be null) adjusts every node's options after the harness's own, e.g.
     * Kafka's LocalTieredStorage as the RSM, the stalling transferer, the JMX exporter (Scenario).
     */
    static Cluster start(Path work, long timeoutMs, int n, Map<String, String> extra, boolean sasl,
                         java.util.function.Consumer<Broker.Options> custom) throws Exception {
        Cluster c = new Cluster(work, timeoutMs);
        c.sasl = sasl;
        c.custom = custom;
        try {
            Files.createDirectories(c.remoteDir);
            Broker.Options o1 = c.options(1, "broker,controller", null, extra);
            Broker ctl = new Broker(work.resolve("node-1"), timeoutMs, o1);
            c.nodes.add(ctl);
            for (int id = 2; id <= n; id++) {
                c.nodes.add(new Broker(work.resolve("node-" + id), timeoutMs,
                        c.options(id, "broker", ctl.voter(), extra)));
            }
            for (Broker b : c.nodes) b.format();
            for (int i = c.nodes.size() - 1; i >= 0; i--) c.nodes.get(i).launch();
            c.waitRegistered();
            for (Broker b : c.nodes) b.waitReady();
            c.spreadRemoteLogMetadata();
            return c;
        } catch (Exception e) {
            c.close();
            throw e;
        }
    }

    private Broker.Options options(int id, String roles, String voters, Map<String, String> extra) {
        Broker.Options o = new Broker.Options();
        o.nodeId = id;
        o.roles = roles;
        o.voters = voters;
        o.clusterId = clusterId;
        o.separateMetadataDir = id != 1;
        o.remoteDir = remoteDir;
        o.heap = "640m";
        o.sasl = sasl;
        o.extra.putAll(extra);
        if (custom != null) custom.accept(o);
        return o;
    }

    Broker node(int id) {
        for (Broker b : nodes) if (b.nodeId == id) return b;
        throw new IllegalArgumentException("no node " + id);
    }

    List<Integer> ids() {
        List<Integer> ids = new ArrayList<>();
        for (Broker b : nodes) ids.add(b.nodeId);
        return ids;
    }

    String bootstrap() {
        List<String> s = new ArrayList<>();
        for (Broker b : nodes) s.add(b.bootstrap());
        return String.join(",", s);
    }

    Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "segscan-oracle-admin");
        return Admin.create(p);
    }

    private void waitRegistered() throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        Exception last = null;
        try (Admin a = admin()) {
            while (System.currentTimeMillis() < deadline) {
                for (Broker b : nodes) b.checkAlive();
                try {
                    Collection<org.apache.kafka.common.Node> ns = a.describeCluster().nodes().get(30, TimeUnit.SECONDS);
                    if (ns.size() == nodes.size()) {
                        Set<String> names = a.listTopics(new ListTopicsOptions().listInternal(true)).names()
                                .get(30, TimeUnit.SECONDS);
                        if (names.contains("__remote_log_metadata") && Broker.allLed(a, names)) return;
                    }
                } catch (Exception e) {
                    last = e;
                }
                Thread.sleep(250);
            }
        }
        throw new IOException("cluster of " + nodes.size() + " not up within " + timeoutMs + " ms (last error: "
                + last + "); see " + work + "/node-*/server.log");
    }

    /**
     * Moves __remote_log_metadata partition p to node (p % n) + 1 with
     * alterPartitionReassignments, as an operator would. Which nodes the controller picked at
     * creation depends on which brokers had registered unfenced by then (seen: all on nodes 2 and
     * 3), so without this a case could not rely on node 1 holding some metadata partitions
     * and not others. Done before any tiered topic exists: the partitions are still empty.
     */
    void spreadRemoteLogMetadata() throws Exception {
        String t = "__remote_log_metadata";
        try (Admin a = admin()) {
            Map<org.apache.kafka.common.TopicPartition, java.util.Optional<org.apache.kafka.clients.admin.NewPartitionReassignment>> re =
                    new java.util.LinkedHashMap<>();
            Map<Integer, Integer> want = new java.util.TreeMap<>();
            org.apache.kafka.clients.admin.TopicDescription td = a.describeTopics(List.of(t)).allTopicNames()
                    .get(30, TimeUnit.SECONDS).get(t);
            for (org.apache.kafka.common.TopicPartitionInfo pi : td.partitions()) {
                if (pi.replicas().size() != 1) {
                    // A test asked for a replicated metadata topic: keep Kafka's placement.
                    Oracle.log("__remote_log_metadata has replication factor " + pi.replicas().size() + ": not moved");
                    return;
                }
                int node = nodes.get(pi.partition() % nodes.size()).nodeId;
                want.put(pi.partition(), node);
                if (pi.replicas().size() == 1 && pi.replicas().get(0).id() == node) continue;
                re.put(new org.apache.kafka.common.TopicPartition(t, pi.partition()), java.util.Optional.of(
                        new org.apache.kafka.clients.admin.NewPartitionReassignment(List.of(node))));
            }
            if (!re.isEmpty()) a.alterPartitionReassignments(re).all().get(30, TimeUnit.SECONDS);
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (true) {
                boolean done = a.listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS).isEmpty();
                if (done) {
                    td = a.describeTopics(List.of(t)).allTopicNames().get(30, TimeUnit.SECONDS).get(t);
                    for (org.apache.kafka.common.TopicPartitionInfo pi : td.partitions()) {
                        int node = want.get(pi.partition());
                        if (pi.leader() == null || pi.leader().id() != node || pi.replicas().size() != 1) done = false;
                    }
                }
                // The old replica's directory goes (renamed -delete, then removed) after the move.
                if (done) {
                    for (Broker b : nodes) {
                        try (java.util.stream.Stream<Path> st = Files.list(b.logDir)) {
                            if (st.anyMatch(q -> q.getFileName().toString().endsWith("-delete"))) done = false;
                        }
                    }
                }
                if (done) break;
                if (System.currentTimeMillis() > deadline) {
                    throw new IOException("__remote_log_metadata reassignment not done within " + timeoutMs + " ms");
                }
                Thread.sleep(250);
            }
            Oracle.log("__remote_log_metadata partitions on nodes " + want + " (" + re.size() + " moved)");
        }
    }

    /** Starts every stopped node again (after {@link #stop}) and waits until the cluster is up. */
    void resume() throws Exception {
        for (int i = nodes.size() - 1; i >= 0; i--) nodes.get(i).launch();
        waitRegistered();
        for (Broker b : nodes) b.waitReady();
    }

    /** SIGTERM every node, brokers first, the controller last (it must see the others' controlled shutdown). */
    void stop() throws Exception {
        for (int i = nodes.size() - 1; i >= 0; i--) nodes.get(i).stop();
    }

    @Override
    public void close() {
        for (Broker b : nodes) b.close();
    }
}
