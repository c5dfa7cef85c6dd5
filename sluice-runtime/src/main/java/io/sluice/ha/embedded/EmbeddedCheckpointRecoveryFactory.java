package io.sluice.ha.embedded;

import io.sluice.ha.CheckpointRecoveryException;
import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.checkpoint.CorruptCheckpointException;
import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointRecoveryFactory;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.RecoveryListener;
import io.sluice.rpc.MainThreads;
import io.sluice.storage.BlobNotFoundException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovers a job's {@link DefaultCompletedCheckpointStore} from the pointers in a
 * {@link FileCheckpointPointerStore}, and hands out {@link FileCheckpointIdCounter}s.
 *
 * <p>Recovery lists the pointers once and reads the metadata of the newest one only, so in the
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
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedCheckpointRecoveryFactory.class);

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
        MainThreads.checkNotMainThread("checkpoint recovery of job " + jobId);
        checkInterrupted(jobId);
        listener.phase("listing checkpoint pointers");
        List<Long> ids = pointers.checkpointIds(jobId);
        listener.pointersFound(ids.size());

        List<String> unusable = new ArrayList<>();
        CompletedCheckpoint latest = null;
        for (int i = ids.size() - 1; i >= 0 && latest == null; i--) {
            long id = ids.get(i);
            checkInterrupted(jobId);
            String reason;
            try {
                listener.phase("reading metadata of checkpoint " + id);
                CompletedCheckpoint cp = storage.readMetadata(pointers.readPointer(jobId, id));
                if (cp.checkpointId() == id && cp.jobId().equals(jobId)) {
                    latest = cp;
                    listener.metadataLoaded(id);
                    continue;
                }
                reason = "its metadata is of checkpoint " + cp.checkpointId() + " of job " + cp.jobId();
            } catch (CorruptCheckpointException e) {
                reason = "corrupt (" + e.getMessage() + ")";
            } catch (BlobNotFoundException e) {
                reason = "missing";
            } catch (NoSuchFileException e) {
                reason = "pointer removed";
            } catch (RuntimeException e) {
                checkInterrupted(jobId, e);
                throw e;
            }
            checkInterrupted(jobId);
            unusable.add("chk-" + id + ": " + reason);
            if (i > 0) {
                String event = "Checkpoint " + id + " of job " + jobId + " is unusable (" + reason
                        + "); falling back to checkpoint " + ids.get(i - 1);
                LOG.warn(event);
                listener.event(event);
            }
        }

        if (latest == null && !ids.isEmpty()) {
            String problem = "None of the " + ids.size() + " retained checkpoints of job " + jobId
                    + " could be read (" + String.join(", ", unusable) + ").";
            if (!allowStartWithoutCheckpoint) {
                throw new CheckpointRecoveryException(problem + " Sluice does not silently start from empty state:"
                        + " fix or restore the checkpoint files, or set allowStartWithoutCheckpoint to start empty.");
            }
            String event = problem + " Starting from empty state because allowStartWithoutCheckpoint is set; the"
                    + " unreadable checkpoints are kept until newer ones subsume them.";
            LOG.warn(event);
            listener.event(event);
        }
        return new DefaultCompletedCheckpointStore(jobId, maxRetained, pointers, storage, election, leaderSessionId,
                latest, ids);
    }

    @Override
    public CheckpointIdCounter createCheckpointIdCounter(JobId jobId, long minimumNextId) throws Exception {
        return FileCheckpointIdCounter.open(jobId, counterDir.resolve(jobId.value()), minimumNextId);
    }

    private static void checkInterrupted(JobId jobId) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("Checkpoint recovery of job " + jobId + " was cancelled");
        }
    }

    private static void checkInterrupted(JobId jobId, Exception cause) throws InterruptedException {
        if (Thread.interrupted()) {
            InterruptedException e = new InterruptedException("Checkpoint recovery of job " + jobId
                    + " was cancelled while reading checkpoint storage");
            e.initCause(cause);
            throw e;
        }
    }
}
