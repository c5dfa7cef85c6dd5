package io.sluice.ha.zookeeper;

import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.graph.JobId;
import java.nio.charset.StandardCharsets;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * A checkpoint id counter shared by all leaders of a job: the znode
 * {@code <base>/checkpoint-counters/<jobId>} holds the next id (decimal text).
 * {@link #getAndIncrement()} is a compare-and-set on the znode's version (the scheme of Curator's
 * {@code SharedCount}), retried on a concurrent change, so every id is handed out at most once,
 * across job managers and restarts. The counter is raised to the minimum given at creation (one
 * after the latest retained checkpoint). Removed with the job's pointers when the job ends.
 *
 * <p>Threading: thread-safe (serialized); blocking, I/O threads only.
 */
public final class ZooKeeperCheckpointIdCounter implements CheckpointIdCounter {
    private final ZooKeeperHaServices zk;
    private final JobId jobId;
    private final String path;
    private final long minimumNextId;
    // Guarded by this: the last value seen in ZooKeeper (or the minimum).
    private long lastSeen;

    ZooKeeperCheckpointIdCounter(ZooKeeperHaServices zk, JobId jobId, String path, long minimumNextId) {
        this.zk = zk;
        this.jobId = jobId;
        this.path = path;
        this.minimumNextId = minimumNextId;
        this.lastSeen = minimumNextId;
    }

    /** Creates the counter znode if missing; blocking. */
    static ZooKeeperCheckpointIdCounter open(ZooKeeperHaServices zk, JobId jobId, String path, long minimumNextId)
            throws Exception {
        if (minimumNextId < 0) {
            throw new IllegalArgumentException("The minimum next checkpoint id must be >= 0, got " + minimumNextId);
        }
        ZooKeeperCheckpointIdCounter counter = new ZooKeeperCheckpointIdCounter(zk, jobId, path, minimumNextId);
        counter.peek();
        return counter;
    }

    @Override
    public synchronized long getAndIncrement() throws Exception {
        for (int attempt = 1; ; attempt++) {
            ZooKeeperGuard.check("checkpoint id counter increment", path);
            Stat stat = new Stat();
            long stored;
            try {
                stored = parse(zk.client().getData().storingStatIn(stat).forPath(path));
            } catch (KeeperException.NoNodeException e) {
                createIfMissing(Math.max(minimumNextId, lastSeen));
                continue;
            }
            long id = Math.max(stored, Math.max(minimumNextId, lastSeen));
            try {
                zk.client().setData().withVersion(stat.getVersion()).forPath(path, encode(id + 1));
                lastSeen = id + 1;
                return id;
            } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                if (attempt >= 100) {
                    throw new IllegalStateException("The checkpoint id counter of job " + jobId + " at " + path
                            + " kept changing concurrently; is another leader checkpointing the job?", e);
                }
            }
        }
    }

    @Override
    public synchronized long peek() throws Exception {
        ZooKeeperGuard.check("checkpoint id counter read", path);
        try {
            lastSeen = Math.max(lastSeen, parse(zk.client().getData().forPath(path)));
        } catch (KeeperException.NoNodeException e) {
            createIfMissing(Math.max(minimumNextId, lastSeen));
        }
        return lastSeen;
    }

    private void createIfMissing(long value) throws Exception {
        ZooKeeperGuard.check("checkpoint id counter create", path);
        try {
            zk.client().create().creatingParentsIfNeeded().forPath(path, encode(value));
        } catch (KeeperException.NodeExistsException e) {
            // another leader created it
        }
    }

    private long parse(byte[] data) {
        try {
            return Long.parseLong(new String(data, StandardCharsets.UTF_8).trim());
        } catch (NumberFormatException e) {
            throw new IllegalStateException("The checkpoint id counter of job " + jobId + " at " + path + " in"
                    + " ZooKeeper " + zk.quorum() + " is corrupt (" + e.getMessage() + "); set it to the id after the"
                    + " job's latest checkpoint, or delete it to continue after the latest retained checkpoint.", e);
        }
    }

    private static byte[] encode(long value) {
        return Long.toString(value).getBytes(StandardCharsets.UTF_8);
    }
}
