package io.sluice.jobmaster.runner;

import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointRecoveryFactory;
import io.sluice.ha.LeaderElection;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.util.Throwables;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * One recovery attempt of a job, the blocking part: checks the job result store (a finished job is
 * never run again), creates the recovered checkpoint store (only the latest checkpoint's metadata is
 * read), reads the checkpoint to start from when the job has none of its own and {@code
 * restoreFrom} is set ({@link RestoreCheckpointResolver}), and creates the id counter.
 *
 * <p>Threading: {@link #recover} runs on an I/O thread and may block; it reports its progress
 * through the given {@link RecoveryProgress} (thread-safe) and stops at the next step when
 * interrupted (the attempt was cancelled).
 */
final class CheckpointRecovery {
    private final JobGraph jobGraph;
    private final JobManagerServices services;
    private final Supplier<LeaderElection> election;

    CheckpointRecovery(JobGraph jobGraph, JobManagerServices services, Supplier<LeaderElection> election) {
        this.jobGraph = jobGraph;
        this.services = services;
        this.election = election;
    }

    /** One attempt under leader session {@code s}. I/O thread. */
    Recovered recover(UUID s, RecoveryProgress p) throws Exception {
        JobId id = jobGraph.jobId();
        p.phase("checking the job result store");
        var finished = services.ha().jobResultStore().result(id);
        if (finished.isPresent()) {
            return new Recovered(finished.get(), null, null, null);
        }
        CheckpointStorage storage = services.checkpointStorages().forLocation(jobGraph.config().checkpointDir());
        CheckpointRecoveryFactory factory = services.ha().checkpointRecoveryFactory();
        p.phase("recovering checkpoints from " + storage.location());
        CompletedCheckpointStore store = factory.createRecoveredCompletedCheckpointStore(id,
                jobGraph.config().retainedCheckpoints(), storage, election.get(), s,
                jobGraph.config().startWithoutCheckpointAllowed(), p);
        checkInterrupted();
        // Above every retained checkpoint, not only the latest usable one: a newer retained one may be unusable
        // or in doubt, and its id must never be handed out again (next id = max(counter, latest retained + 1)).
        long nextId = Math.max(store.latest().map(CompletedCheckpoint::checkpointId).orElse(0L),
                store.retainedIds().isEmpty() ? 0L : store.retainedIds().get(store.retainedIds().size() - 1)) + 1;
        if (store.latest().isEmpty() && store.retainedIds().isEmpty() && jobGraph.config().hasRestoreFrom()) {
            CompletedCheckpoint from = readRestoreFrom(storage, factory, p);
            store = new RestoredCheckpointStore(store, from);
            nextId = Math.max(nextId, from.checkpointId() + 1);
        }
        p.phase("creating the checkpoint id counter");
        CheckpointIdCounter counter = factory.createCheckpointIdCounter(id, nextId);
        p.phase("starting the job master");
        return new Recovered(null, store, counter, storage);
    }

    private CompletedCheckpoint readRestoreFrom(CheckpointStorage storage, CheckpointRecoveryFactory factory,
                                                RecoveryProgress p) throws Exception {
        String spec = jobGraph.config().restoreFrom();
        p.phase("reading the checkpoint to start from (" + spec + ")");
        CompletedCheckpoint from = new RestoreCheckpointResolver(storage, services.checkpointStorages(), factory)
                .resolve(spec);
        SourceParallelismCheck.check(jobGraph, from, spec);
        checkInterrupted();
        p.metadataLoaded(from.checkpointId());
        p.event("Starting from checkpoint " + from.checkpointId() + " of job " + from.jobId() + " ("
                + (CheckpointStorage.isLocation(from.metadataPath()) ? from.metadataPath()
                        : storage.location() + "/" + from.metadataPath())
                + ", from checkpoints.restore-from " + spec + ")");
        return from;
    }

    private static void checkInterrupted() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("recovery cancelled");
        }
    }

    /** Errors that no retry can cure: the job fails. */
    static boolean isPermanent(Throwable cause) {
        return cause instanceof IllegalArgumentException // includes RestoreCheckpointException
                || cause instanceof io.sluice.api.errors.InvalidJobException;
    }

    /**
     * The error as a user should see it in status: the outermost message (which names the storage
     * location, the operation and the object), plus the root cause when that message lacks it.
     */
    static String describeStorageError(Throwable cause) {
        String outer = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getName();
        Throwable root = Throwables.rootCause(cause);
        if (root != cause && root.getMessage() != null && !outer.contains(root.getMessage())) {
            return outer + " (caused by " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
        }
        return outer;
    }
}
