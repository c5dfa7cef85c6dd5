package io.sluice.jobmaster;

import io.sluice.checkpoint.CheckpointException;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.checkpoint.StateRestoreException;
import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreadExecutor;
import java.time.Duration;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job master's fallback past a checkpoint whose keyed state turned out unusable when tasks
 * restored from it (a corrupt or undecodable state file): on the I/O executor, the checkpoint
 * store marks it unusable and loads the newest older usable retained checkpoint
 * ({@link CompletedCheckpointStore#fallBackFrom}); the restart waits for that, then deploys from it.
 * Storage errors while loading are retried with {@link RecoveryBackoff} delays; a corrupt or
 * missing older checkpoint is skipped like at recovery. When none is left the job fails with a
 * message naming the checkpoint, the subtask and the file, and what to do — or, if the job allows
 * starting without a checkpoint, starts from empty state with a warning.
 *
 * <p>Threading: main thread of its job master only; the store call runs on the I/O executor and
 * its result is looked at on the main thread, by the job master's restart.
 */
final class RestoreFallback {
    private static final Logger LOG = LoggerFactory.getLogger(RestoreFallback.class);
    private static final RecoveryBackoff BACKOFF = RecoveryBackoff.DEFAULT;

    private final JobId jobId;
    private final CompletedCheckpointStore store;
    private final Executor ioExecutor;
    private final MainThreadExecutor mainThread;
    private final boolean startWithoutCheckpointAllowed;
    private final SplittableRandom random = new SplittableRandom();

    /** What is being fallen back from, or {@code null} when no fallback is in progress. */
    private StateRestoreException unusable;
    private CompletableFuture<Optional<CompletedCheckpoint>> pending;
    private int failedAttempts;
    /** A failed attempt is to be repeated at the next {@link #readyToDeploy}. */
    private boolean relaunchDue;

    /**
     * @param startWithoutCheckpointAllowed start from empty state, with a warning, when no usable
     *                                      checkpoint is left (the job's {@code startWithoutCheckpointAllowed})
     */
    RestoreFallback(JobId jobId, CompletedCheckpointStore store, Executor ioExecutor, MainThreadExecutor mainThread,
                    boolean startWithoutCheckpointAllowed) {
        this.jobId = jobId;
        this.startWithoutCheckpointAllowed = startWithoutCheckpointAllowed;
        this.store = store;
        this.ioExecutor = ioExecutor;
        this.mainThread = mainThread;
    }

    /** Starts falling back from {@code cause}'s checkpoint; replaces a fallback in progress. */
    void start(StateRestoreException cause) {
        mainThread.assertRunningInMainThread();
        unusable = cause;
        failedAttempts = 0;
        relaunchDue = false;
        launch();
    }

    /** Whether a fallback is in progress (started and not yet deployed from or failed). */
    boolean inProgress() {
        return unusable != null;
    }

    /**
     * Whether the restart may deploy now. If not, exactly one of the callbacks is called later on
     * the main thread: {@code retryAfter} (call {@code readyToDeploy} again after that delay) or
     * {@code fail} (no usable checkpoint remains). {@code fellBack} tells which checkpoint is
     * restored instead, just before this returns {@code true}.
     */
    boolean readyToDeploy(Consumer<Duration> retryAfter, Consumer<Throwable> fail, Consumer<String> fellBack) {
        mainThread.assertRunningInMainThread();
        if (unusable == null) {
            return true;
        }
        if (relaunchDue) {
            relaunchDue = false;
            launch();
        }
        CompletableFuture<Optional<CompletedCheckpoint>> attempt = pending;
        if (!attempt.isDone()) {
            attempt.whenCompleteAsync((result, error) -> {
                if (pending == attempt) {
                    retryAfter.accept(Duration.ZERO);
                }
            }, mainThread);
            return false;
        }
        Optional<CompletedCheckpoint> result;
        try {
            result = attempt.join();
        } catch (CompletionException e) {
            failedAttempts++;
            Duration delay = BACKOFF.delayAfter(failedAttempts, random);
            LOG.warn("Job {}: could not read an older checkpoint to fall back to from unusable checkpoint {}"
                    + " (attempt {}, next in {} ms): {}", jobId, unusable.checkpointId(), failedAttempts,
                    delay.toMillis(), String.valueOf(e.getCause()));
            relaunchDue = true;
            retryAfter.accept(delay);
            return false;
        }
        StateRestoreException from = unusable;
        unusable = null;
        pending = null;
        if (result.isEmpty() && startWithoutCheckpointAllowed) {
            String event = "Checkpoint " + from.checkpointId() + " is unusable: " + from.getMessage() + "; no older"
                    + " retained checkpoint could be restored, so the job starts from empty state because"
                    + " allowStartWithoutCheckpoint is set";
            LOG.warn("Job {}: {}", jobId, event);
            fellBack.accept(event);
            return true;
        }
        if (result.isEmpty()) {
            fail.accept(new CheckpointException("No usable checkpoint remains for job " + jobId + ": checkpoint "
                    + from.checkpointId() + " is unusable (" + from.getMessage() + "), and no older retained"
                    + " checkpoint could be restored. Sluice does not silently start from empty state: put back an"
                    + " intact copy of " + (from.stateFile() == null ? "the checkpoint's metadata" : from.stateFile())
                    + " (for example from a backup) and start the job again from checkpoint " + from.checkpointId()
                    + ", or start it without its checkpoints."));
            return false;
        }
        String event = "Checkpoint " + from.checkpointId() + " is unusable: " + from.getMessage()
                + "; restoring from checkpoint " + result.get().checkpointId() + " instead";
        LOG.warn("Job {}: {}", jobId, event);
        fellBack.accept(event);
        return true;
    }

    private void launch() {
        long id = unusable.checkpointId();
        pending = CompletableFuture.supplyAsync(() -> {
            try {
                return store.fallBackFrom(id, event -> LOG.warn("Job {}: {}", jobId, event));
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, ioExecutor);
    }
}
