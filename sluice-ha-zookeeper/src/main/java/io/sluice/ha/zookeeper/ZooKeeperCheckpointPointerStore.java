package io.sluice.ha.zookeeper;

import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointPointerStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoint pointers as znodes: {@code <dir>/<jobId>/<checkpointId, 19 digits>} holding the
 * metadata path (UTF-8); the metadata itself stays in checkpoint storage.
 *
 * <p>Every write is one ZooKeeper transaction through {@link ZooKeeperHaServices#commit}, so inside
 * {@link io.sluice.ha.LeaderElection#runIfLeader} it is fenced on the writer's leader node.
 * Concurrent modification is tolerated: a create that meets an existing node (NodeExists) is
 * retried as a versioned set; a versioned set that meets a newer version (BadVersion) or a
 * removed node (NoNode) is retried from a fresh read; removals treat NoNode as done; a job
 * directory that gained a child while being removed (NotEmpty) is listed again. A fence failure
 * is never retried. {@link #removeAll} also removes the job's checkpoint id counter
 * ({@code <counterDir>/<jobId>}), so nothing of a finished job is left.
 *
 * <p>Threading: thread-safe; every method blocks and first checks that it is not on a main thread.
 */
public final class ZooKeeperCheckpointPointerStore implements CheckpointPointerStore {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperCheckpointPointerStore.class);
    private static final int MAX_ATTEMPTS = 10;

    private final ZooKeeperHaServices zk;
    private final String dir;
    private final String counterDir;

    ZooKeeperCheckpointPointerStore(ZooKeeperHaServices zk, String dir, String counterDir) {
        this.zk = zk;
        this.dir = dir;
        this.counterDir = counterDir;
    }

    @Override
    public List<Long> checkpointIds(JobId jobId) throws Exception {
        String jobDir = jobDir(jobId);
        ZooKeeperGuard.check("list", jobDir);
        List<String> children;
        try {
            children = zk.client().getChildren().forPath(jobDir);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
        List<Long> ids = new ArrayList<>();
        for (String name : children) {
            try {
                ids.add(Long.parseLong(name));
            } catch (NumberFormatException e) {
                LOG.warn("Ignoring znode {} among the checkpoint pointers of job {}: not a checkpoint id",
                        ZKPaths.makePath(jobDir, name), jobId);
            }
        }
        ids.sort(null);
        return ids;
    }

    @Override
    public void writePointer(JobId jobId, long checkpointId, String metadataPath) throws Exception {
        String path = pointerPath(jobId, checkpointId);
        byte[] data = metadataPath.getBytes(StandardCharsets.UTF_8);
        for (int attempt = 1; ; attempt++) {
            try {
                zk.commit("write checkpoint pointer", List.of(zk.client().transactionOp().create().forPath(path, data)));
                return;
            } catch (KeeperException.NodeExistsException e) {
                // Written before (a retry of the same add): overwrite at the version we read.
            } catch (KeeperException.NoNodeException e) {
                // No job directory yet (or removed concurrently): create it, then again. Only after the fenced
                // attempt, so a rejected stale leader leaves nothing behind.
                if (attempt >= MAX_ATTEMPTS) {
                    throw e;
                }
                zk.ensurePath(jobDir(jobId));
                continue;
            }
            try {
                ZooKeeperGuard.check("read version", path);
                org.apache.zookeeper.data.Stat stat = zk.client().checkExists().forPath(path);
                if (stat == null) {
                    continue;
                }
                zk.commit("overwrite checkpoint pointer",
                        List.of(zk.client().transactionOp().setData().withVersion(stat.getVersion()).forPath(path, data)));
                return;
            } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw new IllegalStateException("The pointer of checkpoint " + checkpointId + " of job " + jobId
                            + " at " + path + " kept changing concurrently (" + attempt + " attempts); is another job"
                            + " manager writing it?", e);
                }
            }
        }
    }

    @Override
    public String readPointer(JobId jobId, long checkpointId) throws Exception {
        String path = pointerPath(jobId, checkpointId);
        ZooKeeperGuard.check("read", path);
        try {
            return new String(zk.client().getData().forPath(path), StandardCharsets.UTF_8);
        } catch (KeeperException.NoNodeException e) {
            NoSuchFileException missing = new NoSuchFileException(path, null,
                    "no pointer of checkpoint " + checkpointId + " of job " + jobId + " in ZooKeeper at " + zk.quorum());
            missing.initCause(e);
            throw missing;
        }
    }

    @Override
    public void removePointer(JobId jobId, long checkpointId) throws Exception {
        deleteIfExists(pointerPath(jobId, checkpointId));
    }

    @Override
    public void removeAll(JobId jobId) throws Exception {
        String jobDir = jobDir(jobId);
        for (int attempt = 1; ; attempt++) {
            for (long id : checkpointIds(jobId)) {
                removePointer(jobId, id);
            }
            try {
                deleteIfExists(jobDir);
                break;
            } catch (KeeperException.NotEmptyException e) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw e;
                }
            }
        }
        deleteIfExists(counterPath(jobId));
    }

    private void deleteIfExists(String path) throws Exception {
        try {
            zk.commit("delete", List.of(zk.client().transactionOp().delete().forPath(path)));
        } catch (KeeperException.NoNodeException e) {
            // idempotent
        }
    }

    String jobDir(JobId jobId) {
        return ZKPaths.makePath(dir, jobId.value());
    }

    String counterPath(JobId jobId) {
        return ZKPaths.makePath(counterDir, jobId.value());
    }

    /** Where the pointer of a checkpoint lives. Does no I/O. */
    public String pointerPath(JobId jobId, long checkpointId) {
        if (checkpointId < 0) {
            throw new IllegalArgumentException("Checkpoint ids are >= 0, got " + checkpointId);
        }
        return ZKPaths.makePath(jobDir(jobId), String.format("%019d", checkpointId));
    }
}
