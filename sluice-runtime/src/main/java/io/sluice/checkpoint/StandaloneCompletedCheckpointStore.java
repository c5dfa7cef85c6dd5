package io.sluice.checkpoint;

import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link CompletedCheckpointStore} that persists no pointers: checkpoints live as long as the
 * job master. For jobs without high availability. Thread-safe; no I/O under its lock.
 */
public final class StandaloneCompletedCheckpointStore implements CompletedCheckpointStore {
    private static final Logger LOG = LoggerFactory.getLogger(StandaloneCompletedCheckpointStore.class);

    private final JobId jobId;
    private final int maxRetained;
    private final CheckpointStorage storage;
    private final Deque<CompletedCheckpoint> checkpoints = new ArrayDeque<>();
    /** Checkpoints a restore found unusable; guarded by {@code checkpoints}. */
    private final java.util.Set<Long> unusable = new java.util.HashSet<>();
    /** How the store was shut down, or {@code null} while it is open; guarded by {@code checkpoints}. */
    private JobStatus shutDownAs;

    public StandaloneCompletedCheckpointStore(JobId jobId, int maxRetained, CheckpointStorage storage) {
        if (maxRetained < 1) {
            throw new IllegalArgumentException("maxRetained must be >= 1, got " + maxRetained);
        }
        this.jobId = jobId;
        this.maxRetained = maxRetained;
        this.storage = storage;
    }

    @Override
    public List<Long> addCheckpoint(CompletedCheckpoint checkpoint) throws CheckpointStoreShutDownException {
        List<Long> subsumed = new ArrayList<>();
        synchronized (checkpoints) {
            if (shutDownAs != null) {
                throw new CheckpointStoreShutDownException(jobId, checkpoint.checkpointId(), shutDownAs.name());
            }
            checkpoints.addLast(checkpoint);
            while (checkpoints.size() > maxRetained) {
                subsumed.add(checkpoints.removeFirst().checkpointId());
            }
        }
        return subsumed;
    }

    @Override
    public Optional<CompletedCheckpoint> latest() {
        synchronized (checkpoints) {
            var it = checkpoints.descendingIterator();
            while (it.hasNext()) {
                CompletedCheckpoint cp = it.next();
                if (!unusable.contains(cp.checkpointId())) {
                    return Optional.of(cp);
                }
            }
            return Optional.empty();
        }
    }

    @Override
    public List<Long> retainedIds() {
        synchronized (checkpoints) {
            return checkpoints.stream().map(CompletedCheckpoint::checkpointId).toList();
        }
    }

    @Override
    public int size() {
        synchronized (checkpoints) {
            return checkpoints.size();
        }
    }

    /** All retained checkpoints are in memory: drops {@code unusableId} and the newer ones from the restore candidates. */
    @Override
    public Optional<CompletedCheckpoint> fallBackFrom(long unusableId, java.util.function.Consumer<String> events) {
        synchronized (checkpoints) {
            unusable.add(unusableId);
            return latest();
        }
    }

    /** All retained checkpoints are in memory: makes every one a restore candidate again. */
    @Override
    public Optional<CompletedCheckpoint> retryUnusable(java.util.function.Consumer<String> events) {
        synchronized (checkpoints) {
            unusable.clear();
            return latest();
        }
    }

    @Override
    public int maxRetained() {
        return maxRetained;
    }

    @Override
    public void shutdown(JobStatus status, boolean discardCheckpoints) {
        List<Long> ids;
        synchronized (checkpoints) {
            shutDownAs = status; // from now on addCheckpoint is refused
            ids = checkpoints.stream().map(CompletedCheckpoint::checkpointId).toList();
            if (discardCheckpoints) {
                checkpoints.clear();
            }
        }
        if (!discardCheckpoints) {
            LOG.info("Job {} is {}; keeping its checkpoints {}", jobId, status, ids);
            return;
        }
        for (long id : ids) {
            try {
                storage.discard(jobId, id);
            } catch (RuntimeException e) {
                LOG.warn("Could not discard checkpoint {} of job {}: {}", id, jobId, e.toString());
            }
        }
        try {
            storage.discardJob(jobId); // orphans nobody points to (every task has ended by now)
        } catch (RuntimeException e) {
            LOG.warn("Could not remove the checkpoint directory of job {}: {}", jobId, e.toString());
        }
    }
}
