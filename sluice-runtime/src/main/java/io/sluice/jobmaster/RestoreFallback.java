package io.sluice.jobmaster;

import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.checkpoint.StateRestoreException;
import io.sluice.config.Durations;
import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreadExecutor;
import java.time.Duration;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job master's fallback past a checkpoint whose keyed state turned out unusable when tasks
 * restored from it (a corrupt or undecodable state file): on the I/O executor, the checkpoint
 * store marks it unusable and loads the newest older usable retained checkpoint
 * ({@link CompletedCheckpointStore#fallBackFrom}); the restart waits for that, then deploys from it.
 * Storage errors while loading are retried with {@link RecoveryBackoff} delays; a corrupt or
 * missing older checkpoint is skipped like at recovery.
 *
 * <p>When none is left the job is not ended (unless it allows starting without a checkpoint, then
 * it starts from empty state with a warning): it waits, with its graph and checkpoints kept, its
 * status naming the checkpoint, the subtask and the file and what to do, and retries on the slow
 * {@link RecoveryBackoff#UNUSABLE_CHECKPOINTS} backoff: each retry forgets which checkpoints were
 * found unusable ({@link CompletedCheckpointStore#retryUnusable}) and deploys from the newest
 * retained one again, so the job resumes by itself once the files are repaired. It can be cancelled
 * meanwhile.
 *
 * <p>Threading: main thread of its job master only; the store call runs on the I/O executor and
 * its result is looked at on the main thread, by the job master's restart.
 */
final class RestoreFallback {
    private static final Logger LOG = LoggerFactory.getLogger(RestoreFallback.class);
    private static final RecoveryBackoff BACKOFF = RecoveryBackoff.DEFAULT;

    /** Told that no usable checkpoint is left and the job waits; main thread. */
    interface WaitingListener {
        /** @param message what is wrong and what to do, for the job's status; {@code retryIn} until the next attempt */
        void waitForRepairedState(String message, Duration retryIn);
    }

    private final JobId jobId;
    private final CompletedCheckpointStore store;
    private final Executor ioExecutor;
    private final MainThreadExecutor mainThread;
    private final boolean startWithoutCheckpointAllowed;
    private final RecoveryBackoff waitBackoff;
    private final RandomGenerator random;

    /** What is being fallen back from, or {@code null} when no fallback is in progress. */
    private StateRestoreException unusable;
    /** The last unusable checkpoint while the job waits for repaired files, or {@code null}. */
    private StateRestoreException waitingAfter;
    private CompletableFuture<Optional<CompletedCheckpoint>> pending;
    private int failedAttempts;
    /** Rounds in which no usable checkpoint was left, since the last successful restore. */
    private int waitRounds;
    /** A failed attempt is to be repeated at the next {@link #readyToDeploy}. */
    private boolean relaunchDue;

    /**
     * @param startWithoutCheckpointAllowed start from empty state, with a warning, when no usable
     *                                      checkpoint is left (the job's {@code startWithoutCheckpointAllowed})
     */
    RestoreFallback(JobId jobId, CompletedCheckpointStore store, Executor ioExecutor, MainThreadExecutor mainThread,
                    boolean startWithoutCheckpointAllowed) {
        this(jobId, store, ioExecutor, mainThread, startWithoutCheckpointAllowed, RecoveryBackoff.UNUSABLE_CHECKPOINTS,
                new SplittableRandom());
    }

    RestoreFallback(JobId jobId, CompletedCheckpointStore store, Executor ioExecutor, MainThreadExecutor mainThread,
                    boolean startWithoutCheckpointAllowed, RecoveryBackoff waitBackoff, RandomGenerator random) {
        this.jobId = jobId;
        this.startWithoutCheckpointAllowed = startWithoutCheckpointAllowed;
        this.store = store;
        this.ioExecutor = ioExecutor;
        this.mainThread = mainThread;
        this.waitBackoff = waitBackoff;
        this.random = random;
    }

    /** Starts falling back from {@code cause}'s checkpoint; replaces a fallback in progress. */
    void start(StateRestoreException cause) {
        mainThread.assertRunningInMainThread();
        unusable = cause;
        waitingAfter = null;
        failedAttempts = 0;
        relaunchDue = false;
        launch();
    }

    /** Whether a fallback is in progress (started and not yet deployed from), or the job waits for repaired files. */
    boolean inProgress() {
        return unusable != null || waitingAfter != null;
    }

    /** Every task of a deployment restored its state: the slow backoff starts again from its first step. */
    void restoreSucceeded() {
        mainThread.assertRunningInMainThread();
        if (!inProgress()) {
            waitRounds = 0;
        }
    }

    /**
     * Whether the restart may deploy now. If not, exactly one of the callbacks is called later on
     * the main thread: {@code retryAfter} (call {@code readyToDeploy} again after that delay) or
     * {@code waiting} (no usable checkpoint remains; call {@code readyToDeploy} again after the
     * delay it gives). {@code fellBack} tells which checkpoint is restored instead, just before this
     * returns {@code true}.
     */
    boolean readyToDeploy(Consumer<Duration> retryAfter, WaitingListener waiting, Consumer<String> fellBack) {
        mainThread.assertRunningInMainThread();
        if (!inProgress()) {
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
        StateRestoreException from = unusable != null ? unusable : waitingAfter;
        Optional<CompletedCheckpoint> result;
        try {
            result = attempt.join();
        } catch (CompletionException e) {
            retryAfter.accept(attemptFailed(from, e.getCause()));
            return false;
        }
        boolean retryingAfterWait = unusable == null;
        pending = null;
        failedAttempts = 0;
        if (result.isEmpty() && !startWithoutCheckpointAllowed) {
            waitForRepairedState(from, waiting);
            return false;
        }
        unusable = null;
        waitingAfter = null;
        String event = result.isEmpty() ? startingEmpty(from) : restoringFrom(result.get(), from, retryingAfterWait);
        LOG.warn("Job {}: {}", jobId, event);
        fellBack.accept(event);
        return true;
    }

    /** The store could not be read: the attempt is repeated after the returned delay. */
    private Duration attemptFailed(StateRestoreException from, Throwable cause) {
        failedAttempts++;
        Duration delay = BACKOFF.delayAfter(failedAttempts, random);
        LOG.warn("Job {}: could not read the retained checkpoints to restore from after unusable checkpoint {}"
                + " (attempt {}, next in {} ms): {}", jobId, from.checkpointId(), failedAttempts,
                delay.toMillis(), String.valueOf(cause));
        relaunchDue = true;
        return delay;
    }

    /** No retained checkpoint has usable state, and starting empty is not allowed: the job waits. */
    private void waitForRepairedState(StateRestoreException from, WaitingListener waiting) {
        unusable = null;
        waitingAfter = from;
        waitRounds++;
        relaunchDue = true; // the next attempt, after the delay, retries the retained checkpoints
        Duration delay = waitBackoff.delayAfter(waitRounds, random);
        String message = "Waiting: no retained checkpoint of job " + jobId + " has usable state: checkpoint "
                + from.checkpointId() + " is unusable (" + from.getMessage() + "), and no older retained"
                + " checkpoint could be restored. The job keeps its graph and checkpoints and tries the"
                + " retained checkpoints again in " + Durations.describe(delay) + " (attempt " + waitRounds + "). Sluice"
                + " does not silently start from empty state: put back an intact copy of "
                + (from.stateFile() == null ? "the checkpoint's metadata" : from.stateFile())
                + " (for example from a backup) and the job resumes by itself; or cancel it and start it again"
                + " with checkpoints.restore-from=<an intact chk-<n> directory>, or without its checkpoints"
                + " (allowStartWithoutCheckpoint).";
        LOG.error("Job {}: {}", jobId, message);
        waiting.waitForRepairedState(message, delay);
    }

    private static String startingEmpty(StateRestoreException from) {
        return "Checkpoint " + from.checkpointId() + " is unusable: " + from.getMessage() + "; no older"
                + " retained checkpoint could be restored, so the job starts from empty state because"
                + " allowStartWithoutCheckpoint is set";
    }

    private String restoringFrom(CompletedCheckpoint checkpoint, StateRestoreException from, boolean retryingAfterWait) {
        return retryingAfterWait
                ? "Retrying checkpoint " + checkpoint.checkpointId() + " after waiting for repaired state files ("
                        + waitRounds + " round(s) without a usable checkpoint; the last unusable was checkpoint "
                        + from.checkpointId() + ": " + from.getMessage() + ")"
                : "Checkpoint " + from.checkpointId() + " is unusable: " + from.getMessage()
                        + "; restoring from checkpoint " + checkpoint.checkpointId() + " instead";
    }

    private void launch() {
        if (unusable != null) {
            long id = unusable.checkpointId();
            pending = CompletableFuture.supplyAsync(() -> {
                try {
                    return store.fallBackFrom(id, event -> LOG.warn("Job {}: {}", jobId, event));
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            }, ioExecutor);
        } else {
            pending = CompletableFuture.supplyAsync(() -> {
                try {
                    return store.retryUnusable(event -> LOG.warn("Job {}: {}", jobId, event));
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            }, ioExecutor);
        }
    }
}
