package io.sluice.ha.embedded;

import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointRecoveryException;
import io.sluice.ha.CheckpointRecoveryFactory;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.RecoveryListener;
import java.nio.file.Path;
import java.util.UUID;

/**
 * Recovers a job's {@link DefaultCompletedCheckpointStore} from the pointers in a
 * {@link FileCheckpointPointerStore}, and hands out {@link FileCheckpointIdCounter}s.
 *
 * <p>Recovery ({@link DefaultCompletedCheckpointStore#recover}, shared with the ZooKeeper HA
 * services) lists the pointers once and reads the metadata of the newest one only, so in the
 * normal case it reads exactly one metadata file however many checkpoints are retained. If that
 * checkpoint is corrupt or its metadata is missing it reports an event and tries the next older
 * one; unusable checkpoints are skipped, never deleted. Any other failure (storage unreachable,
 * I/O error) propagates for the caller to retry with backoff. If there are pointers but none is
 * usable it fails with {@link CheckpointRecoveryException}, or, when starting without a checkpoint
 * is allowed, reports an event and returns a store without a latest checkpoint.
 *
 * <p>Threading: thread-safe and stateless; blocking, on an I/O thread, once per leadership
 * session. Checks for interruption between steps and throws {@link InterruptedException}; an
 * interrupted storage call also ends in {@link InterruptedException}.
 */
public final class EmbeddedCheckpointRecoveryFactory implements CheckpointRecoveryFactory {
    private final FileCheckpointPointerStore pointers;
    private final Path counterDir;

    /**
     * @param counterDir directory of the id counter files, one per job ({@code <haDir>/checkpoint-counters})
     */
    public EmbeddedCheckpointRecoveryFactory(FileCheckpointPointerStore pointers, Path counterDir) {
        this.pointers = pointers;
        this.counterDir = counterDir.toAbsolutePath().normalize();
    }

    @Override
    public CompletedCheckpointStore createRecoveredCompletedCheckpointStore(
            JobId jobId, int maxRetained, CheckpointStorage storage, LeaderElection election, UUID leaderSessionId,
            boolean allowStartWithoutCheckpoint, RecoveryListener listener) throws Exception {
        return DefaultCompletedCheckpointStore.recover(pointers, jobId, maxRetained, storage, election, leaderSessionId,
                allowStartWithoutCheckpoint, listener);
    }

    @Override
    public java.util.List<String> retainedCheckpointPaths(JobId jobId) throws Exception {
        return DefaultCompletedCheckpointStore.retainedPaths(pointers, jobId);
    }

    @Override
    public void removeCheckpointsOfEndedJob(JobId jobId) throws Exception {
        io.sluice.rpc.MainThreads.checkNotMainThread("removing the checkpoint pointers and counter of job " + jobId);
        pointers.removeAll(jobId);
        java.nio.file.Files.deleteIfExists(counterDir.resolve(jobId.value()));
    }

    @Override
    public CheckpointIdCounter createCheckpointIdCounter(JobId jobId, long minimumNextId) throws Exception {
        return FileCheckpointIdCounter.open(jobId, counterDir.resolve(jobId.value()), minimumNextId);
    }
}
