package io.sluice.checkpoint.coordinator;

import io.sluice.checkpoint.CheckpointException;
import io.sluice.checkpoint.CheckpointFailureReason;
import io.sluice.checkpoint.CheckpointPointerInDoubtException;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.SharedStateRegistry;
import io.sluice.checkpoint.CheckpointStoreShutDownException;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.concurrent.Futures;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.ha.LeadershipLostException;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.rpc.MainThreads;
import io.sluice.util.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a fully acknowledged checkpoint durable, in this order: its metadata written atomically to
 * checkpoint storage, then its pointer persisted in the {@link CompletedCheckpointStore}; only then
 * is it handed to {@code completion} (counted, subsumed checkpoints discarded, tasks notified).
 * Before each write it checks that this job master still leads ({@code writesAllowed}) and that the
 * checkpoint has not expired; a checkpoint that expired before its pointer write started is never
 * committed ({@link PendingCheckpoint#tryStartCommit}).
 *
 * <p>Outcomes other than completion: a pointer write refused before it started discards the
 * checkpoint's files; one that failed once started is in doubt ({@link
 * CheckpointPointerInDoubtException}) and keeps them, since the pointer may name them. A pointer
 * that landed only after the timeout keeps the checkpoint as a restore point without counting it
 * or notifying its tasks. A store shut down meanwhile (the job ended) gets its files removed on the
 * I/O thread, since the main thread may not run anything any more. A failure while checkpointing
 * still runs and the timeout has not already counted it is reported to {@link CheckpointFailures}
 * (a lost leadership as such).
 *
 * <p>Threading: {@link #finalizeCheckpoint} and the outcome on the job master's main thread
 * (checked); the writes on the I/O executor (checked by the I/O guard, {@link MainThreads}).
 */
final class CheckpointFinalizer {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointFinalizer.class);

    /** Told of a checkpoint whose pointer landed in time, on the main thread. */
    interface Completion {
        void completed(PendingCheckpoint p, CompletedCheckpoint checkpoint, List<Long> subsumed);
    }

    private final JobId jobId;
    private final JobConfig config;
    private final CheckpointStorage storage;
    private final CompletedCheckpointStore store;
    private final MainThreadExecutor mainThread;
    private final Executor ioExecutor;
    private final Clock clock;
    private final BooleanSupplier writesAllowed;
    private final BooleanSupplier running;
    private final CheckpointDiscarder discarder;
    private final CheckpointFailures failures;
    private final Completion completion;
    private final SharedStateRegistry sharedState;
    /** Set once, right after construction (the pending checkpoints and the finalizer know each other). */
    private PendingCheckpoints pendings;

    CheckpointFinalizer(JobId jobId, JobConfig config, CheckpointStorage storage, CompletedCheckpointStore store,
                        MainThreadExecutor mainThread, Executor ioExecutor, Clock clock, BooleanSupplier writesAllowed,
                        BooleanSupplier running, CheckpointDiscarder discarder, CheckpointFailures failures,
                        Completion completion, SharedStateRegistry sharedState) {
        this.sharedState = sharedState;
        this.jobId = jobId;
        this.config = config;
        this.storage = storage;
        this.store = store;
        this.mainThread = mainThread;
        this.ioExecutor = ioExecutor;
        this.clock = clock;
        this.writesAllowed = writesAllowed;
        this.running = running;
        this.discarder = discarder;
        this.failures = failures;
        this.completion = completion;
    }

    void setPendingCheckpoints(PendingCheckpoints pendings) {
        this.pendings = pendings;
    }

    /** Every task acknowledged {@code p}: writes it on the I/O executor. The timeout keeps running. */
    void finalizeCheckpoint(PendingCheckpoint p) {
        mainThread.assertRunningInMainThread();
        p.startFinalizing();
        CompletedCheckpoint acknowledged = new CompletedCheckpoint(jobId, p.checkpointId, p.triggerTimestampMillis,
                clock.currentTimeMillis(), p.handles(), null);
        // Registered before its metadata is written, which carries the registry; released by its discard.
        sharedState.register(acknowledged);
        CompletedCheckpoint checkpoint = sharedState.size() == 0 ? acknowledged
                : acknowledged.withSharedFileReferences(sharedState.references());
        CompletableFuture.supplyAsync(() -> {
            try {
                return write(p, checkpoint);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, ioExecutor).whenCompleteAsync((subsumed, error) -> onWritten(p, checkpoint, subsumed, error), mainThread);
    }

    /** I/O thread: metadata, then pointer; returns the checkpoints the new one subsumed. */
    private List<Long> write(PendingCheckpoint p, CompletedCheckpoint checkpoint) throws Exception {
        MainThreads.checkNotMainThread("writing checkpoint " + p.checkpointId + " of job " + jobId);
        requireWritesAllowed();
        if (p.expired()) {
            throw new CheckpointException("it expired before its metadata was written");
        }
        CompletedCheckpoint stored = checkpoint.withMetadataPath(storage.writeMetadata(checkpoint));
        requireWritesAllowed();
        if (!p.tryStartCommit()) {
            throw new CheckpointException("it expired while its metadata was written; no pointer was written");
        }
        try {
            return store.addCheckpoint(stored);
        } catch (CheckpointStoreShutDownException shutDown) {
            // The job ended meanwhile and its store was cleaned up: remove the files here, on
            // this thread, since the job master's main thread may not run anything any more.
            LOG.info("{}", shutDown.getMessage());
            discarder.discardOnThisThread(p.checkpointId);
            throw shutDown;
        }
    }

    /** Main thread: the outcome of {@link #write}. */
    private void onWritten(PendingCheckpoint p, CompletedCheckpoint checkpoint, List<Long> subsumed, Throwable error) {
        boolean expired = p.expired();
        pendings.finalized(p);
        if (error != null) {
            onWriteFailed(p, Futures.unwrap(error), expired);
        } else if (expired) {
            // The pointer landed after the timeout: the checkpoint is durable and a valid restore point,
            // but it does not count as completed and its tasks are not notified.
            LOG.warn("Checkpoint {} of job {} was persisted only after its timeout of {}; it is kept as a restore"
                    + " point but not counted as completed", p.checkpointId, jobId, config.checkpointTimeout());
            discarder.discardSubsumed(subsumed);
        } else {
            completion.completed(p, checkpoint, subsumed);
        }
    }

    private void onWriteFailed(PendingCheckpoint p, Throwable cause, boolean expired) {
        if (cause instanceof CheckpointStoreShutDownException) {
            return; // the job ended; the files are already discarded
        }
        boolean inDoubt = cause instanceof CheckpointPointerInDoubtException;
        if (!inDoubt) {
            discarder.discardAsync(p.checkpointId); // no pointer was written: its files (and a late _metadata) go
        }
        if (running.getAsBoolean() && !expired) {
            // In doubt, the message says that the pointer may have landed and the files are kept.
            failures.failed(p.checkpointId, leadershipLost(cause)
                            ? CheckpointFailureReason.LEADERSHIP_LOST : CheckpointFailureReason.ofFinalization(cause),
                    "could not be completed: " + Causes.rootMessage(cause));
        } else if (inDoubt) {
            // Not reported as a failure (this job master stopped, or the timeout already counted it).
            LOG.warn("{} (job {}; this job master no longer checkpoints)", cause.getMessage(), jobId);
        } else {
            LOG.info("Checkpoint {} of job {} was not completed ({}); its files are discarded",
                    p.checkpointId, jobId, Causes.rootMessage(cause));
        }
    }

    private void requireWritesAllowed() throws NotLeaderException {
        if (!writesAllowed.getAsBoolean()) {
            throw new NotLeaderException();
        }
    }

    /** Whether {@code cause} (or what it wraps) says that this job master's leadership is gone. */
    private static boolean leadershipLost(Throwable cause) {
        for (Throwable c = cause; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof NotLeaderException || c instanceof LeadershipLostException) {
                return true;
            }
        }
        return false;
    }

    /** Leadership was lost: nothing is written for this job master any more. */
    private static final class NotLeaderException extends CheckpointException {
        NotLeaderException() {
            super("this job master is no longer the leader");
        }
    }
}
