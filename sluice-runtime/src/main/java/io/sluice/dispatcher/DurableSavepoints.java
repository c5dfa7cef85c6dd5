package io.sluice.dispatcher;

import io.sluice.checkpoint.Savepoint;
import io.sluice.concurrent.Futures;
import io.sluice.concurrent.RetryRunner;
import io.sluice.graph.JobId;
import io.sluice.ha.SavepointStore;
import io.sluice.job.JobResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the Dispatcher's {@link SavepointHistory} and the HA services' {@link SavepointStore} in step,
 * so that the savepoints of a job stay listed across job-manager failovers and cluster restarts:
 * <ul>
 *   <li><b>{@link #record}</b>: a completed savepoint goes into the history at once and into the store on
 *       the I/O executor (at most {@link SavepointHistory#PER_JOB} per job); the caller's answer waits for
 *       the write, so a savepoint the user was told about is listed by the next leader. A failed write is
 *       logged (the savepoint itself is complete and restores) and does not fail the savepoint.</li>
 *   <li><b>{@link #load}</b>: once per dispatcher leadership session, all stored entries are read on the I/O
 *       executor (retried with the recovery backoff while the session lasts) and merged into the history;
 *       entries that cannot be read are logged one by one and left out, the rest are listed. This runs beside
 *       the recovery of the jobs and never holds it back.</li>
 *   <li><b>{@link #list}</b>: while the session's read runs, a listing waits for it; if its last attempt
 *       failed, the listing fails saying why. A standby reads the job's entries from the store for each
 *       listing; so does the leader for a job it dropped from memory ({@link SavepointHistory#JOBS}).</li>
 * </ul>
 * Entries are never removed but to keep the newest {@link SavepointHistory#PER_JOB} per job: they stay as
 * long as the job's result (see {@link SavepointStore}). The write is not fenced by the dispatcher leadership:
 * an entry only states that a savepoint exists, so a deposed leader's late write adds a true entry (which a
 * new leader that already read the store lists after its next grant, or on a standby's per-listing read).
 *
 * <p>Threading: the Dispatcher's main thread (every method checks it); store calls on the I/O executor;
 * each completion re-checks the leader session it was started under.
 */
final class DurableSavepoints {
    private static final Logger LOG = LoggerFactory.getLogger(DurableSavepoints.class);

    private final DispatcherCore core;
    private final SavepointHistory history = new SavepointHistory();
    /** The session whose read of the store is pending, or null. */
    private UUID loadingSession;
    /** Completed once the pending read merged its entries (or the session ended). */
    private CompletableFuture<Void> loaded = CompletableFuture.completedFuture(null);
    /** Why the pending read's last attempt failed, or null. */
    private String loadFailure;
    private RetryRunner<SavepointStore.Stored> reading;

    DurableSavepoints(DispatcherCore core) {
        this.core = core;
    }

    private SavepointStore store() {
        return core.services.ha().savepointStore();
    }

    /** A savepoint completed: listed at once, and stored durably before the returned future completes. */
    CompletableFuture<Savepoint> record(Savepoint savepoint) {
        core.assertMainThread();
        history.add(savepoint);
        return CompletableFuture.runAsync(() -> {
            try {
                store().addSavepoint(savepoint, SavepointHistory.PER_JOB);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, core.services.ioExecutor()).handleAsync((ok, error) -> {
            if (error != null) {
                LOG.warn("Savepoint {} of job {} is complete, but its entry could not be stored in the HA services:"
                                + " {}. It restores as ever; a job manager that takes over will not list it.",
                        savepoint.path(), savepoint.jobId(), JobResult.describe(Futures.unwrap(error)));
            }
            return savepoint;
        }, core.mainThread);
    }

    /** The dispatcher leadership was granted under {@code session}: reads the stored entries once. */
    void load(UUID session) {
        core.assertMainThread();
        stop();
        loadingSession = session;
        loadFailure = null;
        CompletableFuture<Void> done = new CompletableFuture<>();
        loaded = done;
        reading = RetryRunner.with(core.services.recoveryBackoff().policy())
                .scheduler(core.mainThread).clock(core.services.clock()).random(core.services.random())
                .whileCurrent(() -> core.leads(session) && session.equals(loadingSession))
                .onRetry((attempt, error, delay) -> {
                    loadFailure = JobResult.describe(error);
                    LOG.warn("Could not read the stored savepoint entries (attempt {}): {}; retrying in {} ms",
                            attempt, loadFailure, delay.toMillis());
                })
                .start(attempt -> CompletableFuture.supplyAsync(() -> {
                    try {
                        return store().savepoints();
                    } catch (Exception e) {
                        throw new CompletionException(e);
                    }
                }, core.services.ioExecutor()));
        reading.result().thenAccept(stored -> {
            if (!session.equals(loadingSession)) {
                return;
            }
            int count = merge(stored);
            LOG.info("Read {} stored savepoint entr{} of {} job(s){}", count, count == 1 ? "y" : "ies",
                    stored.byJob().size(), stored.unreadable().isEmpty() ? ""
                            : "; " + stored.unreadable().size() + " unreadable, not listed");
            loadingSession = null;
            loadFailure = null;
            reading = null;
            done.complete(null);
        });
    }

    /** Leadership lost (or closed): the pending read stops, and listings waiting for it answer from memory. */
    void stop() {
        core.assertMainThread();
        if (reading != null) {
            reading.cancel();
            reading = null;
        }
        loadingSession = null;
        loadFailure = null;
        loaded.complete(null);
    }

    /** The job's savepoints, oldest first; see the class comment for when this waits or reads the store. */
    CompletableFuture<List<Savepoint>> list(JobId jobId) {
        core.assertMainThread();
        if (loadingSession != null) {
            if (loadFailure != null) {
                return CompletableFuture.failedFuture(new IllegalStateException("The savepoints of job " + jobId
                        + " cannot be listed yet: the savepoint entries in the HA services could not be read ("
                        + loadFailure + "); the job manager keeps trying, ask again in a moment"));
            }
            return loaded.thenComposeAsync(v -> list(jobId), core.mainThread);
        }
        List<Savepoint> known = history.of(jobId);
        if (core.leaderSession != null && (!known.isEmpty() || !history.evictedAny())) {
            return CompletableFuture.completedFuture(known);
        }
        return CompletableFuture.supplyAsync(() -> {
            try {
                return store().savepoints(jobId);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, core.services.ioExecutor()).thenApplyAsync(stored -> {
            stored.unreadable().forEach(DurableSavepoints::logUnreadable);
            history.addAll(stored.byJob().getOrDefault(jobId, List.of()));
            return history.of(jobId);
        }, core.mainThread);
    }

    /** Merges what was read, the jobs with the oldest newest savepoint first (so memory keeps the recent ones). */
    private int merge(SavepointStore.Stored stored) {
        stored.unreadable().forEach(DurableSavepoints::logUnreadable);
        List<Map.Entry<JobId, List<Savepoint>>> jobs = new ArrayList<>(stored.byJob().entrySet());
        jobs.sort(Comparator.comparingLong(e -> e.getValue().stream()
                .mapToLong(Savepoint::completionTimestampMillis).max().orElse(0)));
        int count = 0;
        for (Map.Entry<JobId, List<Savepoint>> job : jobs) {
            history.addAll(job.getValue());
            count += job.getValue().size();
        }
        return count;
    }

    private static void logUnreadable(String what) {
        LOG.warn("Skipping a stored savepoint entry: {}", what);
    }
}
