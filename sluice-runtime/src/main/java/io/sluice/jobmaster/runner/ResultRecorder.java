package io.sluice.jobmaster.runner;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.checkpoint.IncompleteCheckpointCleanupException;
import io.sluice.concurrent.Futures;
import io.sluice.config.Durations;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.rpc.MainThreadExecutor;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes an ended job's result durable, then cleans up: writes the result to the job result store
 * and removes the job's jar and graph (each fenced on the leader session), retrying with backoff
 * until all three succeed (progress shown in status); only then shuts the checkpoint store down and
 * deletes checkpoints as {@link io.sluice.checkpoint.CheckpointRetention} says, and reports the
 * result as durable. Without leadership it waits: the next grant resumes it.
 *
 * <p>Threading: the runner's main thread; storage calls run on the I/O executor and each callback
 * re-checks that it still may act. A deletion that storage refuses does not hold the job up (the
 * pointers are gone, so the files only take space): it is retried with backoff in the background,
 * also after the runner closed, for as long as the main thread runs.
 */
final class ResultRecorder {
    private static final Logger LOG = LoggerFactory.getLogger(ResultRecorder.class);

    private final RunnerSupport support;
    private final JobResult result;
    private final CompletedCheckpointStore store;
    private final RecoveryProgress progress;
    private final Consumer<JobResult> durable;
    /** The session the result is written under; null while not leading. */
    private UUID session;
    private int attempt;
    private boolean writeInFlight;
    private boolean written;
    private boolean stopped;
    private MainThreadExecutor.ScheduledTask retry;

    /** @param durable told (on the main thread) with the final result once it is durable and cleaned up */
    ResultRecorder(RunnerSupport support, JobResult result, CompletedCheckpointStore store, UUID session,
                   Consumer<JobResult> durable) {
        this.support = support;
        this.result = result;
        this.store = store;
        this.session = session;
        this.durable = durable;
        this.progress = support.newProgress();
        progress.phase("recording the job result");
    }

    RecoveryProgress progress() {
        return progress;
    }

    /** Leadership changed: {@code s} leads now (null: revoked). A grant resumes a waiting write. */
    void leadership(UUID s) {
        session = s;
        if (s != null) {
            LOG.info("{} gained leadership (session {}) while its result is being recorded", support.description(), s);
            recordSoon(Duration.ZERO);
        }
    }

    /** No further result write (job manager shutdown); a checkpoint clean-up already started goes on. */
    void stop() {
        stopped = true;
        if (retry != null) {
            retry.cancel();
            retry = null;
        }
    }

    void recordSoon(Duration delay) {
        if (retry != null || writeInFlight || written || stopped) {
            return;
        }
        if (delay.isZero()) {
            record();
        } else {
            retry = support.mainThread.schedule(() -> {
                retry = null;
                record();
            }, delay);
        }
    }

    private void record() {
        if (stopped || writeInFlight || written) {
            return;
        }
        UUID s = session;
        if (s == null) {
            progress.phase("waiting for leadership to record the job result (" + result.status() + ")");
            LOG.info("{}: not leading; the result {} is recorded once leadership is back", support.description(),
                    result.status());
            return;
        }
        attempt++;
        progress.startAttempt(attempt);
        progress.phase("recording the job result (" + result.status() + ") and removing the job graph");
        writeInFlight = true;
        CompletableFuture.runAsync(() -> write(s), support.services.ioExecutor())
                .whenCompleteAsync((ok, error) -> written(s, error), support.mainThread);
    }

    /** I/O thread. */
    private void write(UUID s) {
        var ha = support.services.ha();
        var id = support.jobGraph.jobId();
        try {
            support.election().runIfLeader(s, () -> ha.jobResultStore().putResult(result));
            // Only once the result is durable: without the graph nothing could run the job again anyway. The jar
            // before the graph: a graph left beside a result is found (and removed) by the next leader, a jar is not.
            support.election().runIfLeader(s, () -> ha.jobJarStore().removeJobJar(id));
            support.election().runIfLeader(s, () -> ha.jobGraphStore().removeJobGraph(id));
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    private void written(UUID s, Throwable error) {
        writeInFlight = false;
        if (stopped) {
            return;
        }
        if (error == null) {
            written = true;
            cleanUpCheckpoints(s);
            return;
        }
        Throwable cause = Futures.unwrap(error);
        Duration delay = support.services.recoveryBackoff().delayAfter(attempt, support.services.random());
        String message = CheckpointRecovery.describeStorageError(cause);
        String delayText = Durations.describe(delay);
        progress.failedAttempt(message, delay.toNanos(), "could not record the job result (" + result.status()
                + "); the job graph is kept until it is recorded; retrying in " + delayText);
        LOG.warn("{}: could not record the result {} (attempt {}): {}; the job graph is kept, retrying in {}",
                support.description(), result.status(), attempt, message, delayText);
        if (!s.equals(session)) {
            return; // that session ended meanwhile: the next grant resumes
        }
        recordSoon(delay.isZero() ? Duration.ofMillis(1) : delay);
    }

    private void cleanUpCheckpoints(UUID s) {
        boolean discard = result.deleteCheckpoints();
        progress.phase(discard ? "deleting the job's checkpoints" : "keeping the job's checkpoints");
        shutDownStore(s, discard, 1).whenCompleteAsync((deleted, error) ->
                durable.accept(Boolean.TRUE.equals(deleted) ? result.withCheckpointsDeleted() : result),
                support.mainThread);
    }

    /**
     * Shuts the store down on the I/O executor; on an incomplete cleanup schedules the next attempt. With
     * {@code discard}, also deletes what the HA services keep for the job's checkpoints (pointers, id counter)
     * and, when there is no store (the job ended before its job master started, e.g. cancelled while
     * INITIALIZING), every file under the job's checkpoint directory; then records in the result that nothing
     * is left. Completes with whether everything was deleted.
     */
    private CompletableFuture<Boolean> shutDownStore(UUID s, boolean discard, int cleanupAttempt) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return shutDownAndDelete(s, discard);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, support.services.ioExecutor()).handleAsync((deleted, error) -> {
            if (error == null) {
                if (cleanupAttempt > 1) {
                    LOG.info("{}: the checkpoints of the {} job are deleted (attempt {})", support.description(),
                            result.status(), cleanupAttempt);
                }
                return deleted;
            }
            cleanUpFailed(s, discard, cleanupAttempt, Futures.unwrap(error));
            return false;
        }, support.mainThread);
    }

    /** I/O thread. */
    private boolean shutDownAndDelete(UUID s, boolean discard) throws Exception {
        JobStatus status = result.status();
        var id = support.jobGraph.jobId();
        if (store != null) {
            store.shutdown(status, discard);
        }
        if (!discard || s == null) {
            return false; // kept, or not leading: the next leader's Dispatcher finishes the deletion (the result says so)
        }
        support.election().runIfLeader(s, () -> support.services.ha().checkpointRecoveryFactory()
                .removeCheckpointsOfEndedJob(id));
        if (store == null) {
            CheckpointStorage storage = support.services.checkpointStorages()
                    .forLocation(support.jobGraph.config().checkpointDir());
            try {
                storage.discardJob(id);
            } catch (RuntimeException e) {
                throw new IncompleteCheckpointCleanupException(id, status, storage.location(), List.of(), e);
            }
        }
        support.election().runIfLeader(s, () -> support.services.ha().jobResultStore()
                .putResult(result.withCheckpointsDeleted()));
        return true;
    }

    private void cleanUpFailed(UUID s, boolean discard, int cleanupAttempt, Throwable cause) {
        if (cause instanceof IncompleteCheckpointCleanupException) {
            Duration delay = support.services.recoveryBackoff().delayAfter(cleanupAttempt, support.services.random());
            LOG.warn("{}: {} (attempt {}, next in {})", support.description(), cause.getMessage(), cleanupAttempt,
                    Durations.describe(delay));
            support.mainThread.schedule(() -> shutDownStore(s, discard, cleanupAttempt + 1), delay);
        } else {
            LOG.warn("{}: the result {} is recorded, but the checkpoints could not be cleaned up: {}; the leading"
                    + " job manager finishes the clean-up when it next starts", support.description(), result.status(),
                    cause.toString());
        }
    }
}
