package io.sluice.ha.zookeeper;

import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointRecoveryFactory;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.RecoveryListener;
import io.sluice.ha.embedded.DefaultCompletedCheckpointStore;
import java.util.UUID;
import org.apache.curator.utils.ZKPaths;

/**
 * Recovers a job's checkpoint store from its pointer znodes with the same logic as the embedded
 * services ({@link DefaultCompletedCheckpointStore#recover}: one listing, only the latest
 * metadata loaded, fallback with an event, {@link io.sluice.ha.CheckpointRecoveryException} when
 * none is usable, interruptible), and hands out {@link ZooKeeperCheckpointIdCounter}s.
 * Stateless and thread-safe; blocking; I/O threads only.
 */
public final class ZooKeeperCheckpointRecoveryFactory implements CheckpointRecoveryFactory {
    private final ZooKeeperHaServices zk;
    private final ZooKeeperCheckpointPointerStore pointers;
    private final String counterDir;

    ZooKeeperCheckpointRecoveryFactory(ZooKeeperHaServices zk, ZooKeeperCheckpointPointerStore pointers,
                                       String counterDir) {
        this.zk = zk;
        this.pointers = pointers;
        this.counterDir = counterDir;
    }

    /** The pointer store (for tests and tools). */
    public ZooKeeperCheckpointPointerStore pointerStore() {
        return pointers;
    }

    @Override
    public CompletedCheckpointStore createRecoveredCompletedCheckpointStore(
            JobId jobId, int maxRetained, CheckpointStorage storage, LeaderElection election, UUID leaderSessionId,
            boolean allowStartWithoutCheckpoint, RecoveryListener listener) throws Exception {
        ZooKeeperGuard.check("checkpoint recovery", pointers.jobDir(jobId));
        return DefaultCompletedCheckpointStore.recover(pointers, jobId, maxRetained, storage, election,
                leaderSessionId, allowStartWithoutCheckpoint, listener);
    }

    @Override
    public java.util.List<String> retainedCheckpointPaths(JobId jobId) throws Exception {
        return DefaultCompletedCheckpointStore.retainedPaths(pointers, jobId);
    }

    /** Removes the job's pointers and its id counter (the pointer store's {@code removeAll} removes both). */
    @Override
    public void removeCheckpointsOfEndedJob(JobId jobId) throws Exception {
        ZooKeeperGuard.check("removing the checkpoints of an ended job", pointers.jobDir(jobId));
        pointers.removeAll(jobId);
    }

    @Override
    public CheckpointIdCounter createCheckpointIdCounter(JobId jobId, long minimumNextId) throws Exception {
        return ZooKeeperCheckpointIdCounter.open(zk, jobId, ZKPaths.makePath(counterDir, jobId.value()), minimumNextId);
    }
}
