package io.sluice.jobmaster.runner;

import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.job.JobStatus;
import java.util.List;
import java.util.Optional;

/**
 * A job's own (empty) checkpoint store that offers, until the job completes a checkpoint of its
 * own, the checkpoint it was told to start from ({@code checkpoints.restore-from}) as
 * {@link #latest()}. That checkpoint belongs to another job (or an earlier run): it is never among
 * {@link #retainedIds()}, so this job's retention and cleanup never delete it.
 *
 * <p>Threading: as the wrapped store; {@link #latest()} is non-blocking and safe on any thread.
 */
final class RestoredCheckpointStore implements CompletedCheckpointStore {
    private final CompletedCheckpointStore own;
    private final CompletedCheckpoint restoreFrom;
    /** Whether a restore found {@link #restoreFrom}'s state unusable (until {@link #retryUnusable}). */
    private volatile boolean restoreFromUnusable;

    RestoredCheckpointStore(CompletedCheckpointStore own, CompletedCheckpoint restoreFrom) {
        this.own = own;
        this.restoreFrom = restoreFrom;
    }

    @Override
    public List<Long> addCheckpoint(CompletedCheckpoint checkpoint) throws Exception {
        return own.addCheckpoint(checkpoint);
    }

    @Override
    public Optional<CompletedCheckpoint> latest() {
        Optional<CompletedCheckpoint> latest = own.latest();
        return latest.isPresent() || restoreFromUnusable ? latest : Optional.of(restoreFrom);
    }

    /**
     * The checkpoint started from is older than all of the job's own: it is the last candidate. It
     * is never the own store's, so a fallback from it only marks it unusable here.
     */
    @Override
    public Optional<CompletedCheckpoint> fallBackFrom(long unusableId, java.util.function.Consumer<String> events)
            throws Exception {
        if (unusableId == restoreFrom.checkpointId() && !own.retainedIds().contains(unusableId)) {
            restoreFromUnusable = true;
            return own.latest();
        }
        Optional<CompletedCheckpoint> older = own.retainedIds().isEmpty() ? Optional.empty()
                : own.fallBackFrom(unusableId, events);
        return older.isPresent() || restoreFromUnusable ? older : Optional.of(restoreFrom);
    }

    @Override
    public Optional<CompletedCheckpoint> retryUnusable(java.util.function.Consumer<String> events) throws Exception {
        restoreFromUnusable = false;
        Optional<CompletedCheckpoint> newest = own.retainedIds().isEmpty() ? Optional.empty()
                : own.retryUnusable(events);
        return newest.isPresent() ? newest : Optional.of(restoreFrom);
    }

    @Override
    public List<Long> retainedIds() {
        return own.retainedIds();
    }

    @Override
    public int size() {
        return own.size();
    }

    @Override
    public int maxRetained() {
        return own.maxRetained();
    }

    @Override
    public void shutdown(JobStatus status, boolean discardCheckpoints) throws Exception {
        own.shutdown(status, discardCheckpoints);
    }
}
