package io.sluice.dispatcher;

import io.sluice.concurrent.Futures;
import io.sluice.graph.JobId;
import io.sluice.ha.LeaderElection;
import io.sluice.job.JobResult;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.protocol.CheckpointsDeletion;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leading Dispatcher's clean-up of ended jobs, so that nothing is left behind:
 * <ul>
 *   <li><b>On gaining leadership</b> it finishes the clean-up of every ended job whose job manager
 *       stopped between the result write and the clean-up: a job graph (and jar) still stored beside
 *       a result is removed, and checkpoints the result says are to be deleted are deleted. Failed
 *       attempts are retried with the recovery backoff while this leadership lasts.</li>
 *   <li><b>Periodically</b> ({@link EndedJobRetention#sweepInterval()}) it deletes the retained
 *       checkpoints of ended jobs older than {@code checkpoints.ended-job-retention}, except those a
 *       running job was started from ({@code checkpoints.restore-from} names the job): they are kept
 *       until that job no longer runs.</li>
 *   <li><b>On request</b> ({@link #deleteNow}) it deletes one ended job's checkpoints at once.</li>
 *   <li><b>Forgetting</b>: at every sweep, and when a job ends with more than
 *       {@code jobmanager.ended-jobs.max-count} ended jobs remembered, it forgets the ended jobs older than
 *       {@code jobmanager.ended-jobs.retention} and, beyond the count, those that ended first: their jar,
 *       graph and result are removed from the HA services ({@link EndedJobCleanup#forget}), then their
 *       record from memory. A job with checkpoints left in storage, or one in use, is not forgotten (its
 *       checkpoints' expiry comes first), so what an ended job leaves is bounded in time and count.</li>
 * </ul>
 * The work itself is {@link EndedJobCleanup}'s, on the I/O executor; only ended jobs are ever
 * touched: a job with a runner is never looked at, and the Dispatcher refuses requests for it.
 *
 * <p>Threading: everything here runs on the Dispatcher's main thread ({@code mainThread}); blocking
 * work goes to the I/O executor, and each completion re-checks that the leadership session it
 * started in is still the current one before it retries or schedules anything.
 */
final class EndedJobJanitor {
    private static final Logger LOG = LoggerFactory.getLogger(EndedJobJanitor.class);

    /** What the janitor needs of its Dispatcher; main thread only. */
    interface Context {
        /** The current dispatcher leadership session, or {@code null} while a standby. */
        UUID leaderSession();

        LeaderElection dispatcherElection();

        /** The results of the ended jobs the Dispatcher knows (from memory). */
        Collection<JobResult> endedJobs();

        /** The job's result as stored now (after a clean-up changed it). */
        void resultChanged(JobResult result);

        /** Whether {@code jobId} runs here, or a job that runs here was started from its checkpoints. */
        boolean inUse(JobId jobId);

        /** The ended job was forgotten in the HA services: forget its record too. */
        void forgotten(JobResult result);
    }

    private final EndedJobRetention retention;
    private final EndedJobCleanup cleanup;
    private final MainThreadExecutor mainThread;
    private final Executor ioExecutor;
    private final Clock clock;
    private final RecoveryBackoff backoff;
    private final RandomGenerator random;
    private final Context context;
    /** Jobs whose clean-up runs on the I/O executor now. */
    private final Set<JobId> inFlight = new HashSet<>();
    /** Jobs being forgotten on the I/O executor now. */
    private final Set<JobId> forgetting = new HashSet<>();
    /** The session of {@link #leading}, until {@link #notLeading}; null otherwise. */
    private UUID session;
    /** The next sweep, or null while not leading. */
    private MainThreadExecutor.ScheduledTask nextSweep;

    EndedJobJanitor(EndedJobRetention retention, EndedJobCleanup cleanup, MainThreadExecutor mainThread,
                    Executor ioExecutor, Clock clock, RecoveryBackoff backoff, RandomGenerator random, Context context) {
        this.retention = retention;
        this.cleanup = cleanup;
        this.mainThread = mainThread;
        this.ioExecutor = ioExecutor;
        this.clock = clock;
        this.backoff = backoff;
        this.random = random;
        this.context = context;
    }

    /**
     * The Dispatcher leads under {@code session} and listed the stored jobs: finishes what ended jobs
     * left ({@code storedGraphs}: the ids of all stored job graphs), deletes checkpoints that expired
     * meanwhile, and starts the periodic sweep.
     */
    void leading(UUID session, Collection<JobId> storedGraphs, Collection<JobResult> results) {
        mainThread.assertRunningInMainThread();
        for (JobResult r : results) {
            boolean graph = storedGraphs.contains(r.jobId());
            boolean checkpoints = r.mayHaveCheckpoints() && r.deleteCheckpoints();
            if ((graph || checkpoints) && !context.inUse(r.jobId())) {
                LOG.info("Job {} ended {} but its clean-up did not finish (the job manager stopped in between);"
                                + " finishing it: {}{}", r.jobId(), r.status(), graph ? "the job graph and jar" : "",
                        checkpoints ? (graph ? ", " : "") + "the checkpoints in " + r.checkpointsLocation() : "");
                run(session, r, graph, checkpoints, 1);
            }
        }
        this.session = session;
        sweep(session); // checkpoints that expired while no job manager led go now, not one interval later
    }

    /** A job ended here (or its result was read back): more ended jobs than the count are forgotten now. */
    void jobEnded() {
        mainThread.assertRunningInMainThread();
        if (session != null && session.equals(context.leaderSession())
                && context.endedJobs().size() - forgetting.size() > retention.maxEndedJobs()) {
            forgetOld(session, clock.currentTimeMillis());
        }
    }

    /** Leadership ended: no sweep any more; clean-ups in flight finish, but are not retried. */
    void notLeading() {
        mainThread.assertRunningInMainThread();
        session = null;
        if (nextSweep != null) {
            nextSweep.cancel();
            nextSweep = null;
        }
    }

    /**
     * Deletes the retained checkpoints of the ended job {@code result} now. Fails with
     * {@link IllegalStateException} while a deletion of them already runs or a running job was started
     * from them.
     */
    CompletableFuture<CheckpointsDeletion> deleteNow(JobResult result) {
        mainThread.assertRunningInMainThread();
        UUID session = context.leaderSession();
        if (session == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("This job manager no longer leads;"
                    + " delete the checkpoints of job " + result.jobId() + " at the leader"));
        }
        if (context.inUse(result.jobId())) {
            return CompletableFuture.failedFuture(new IllegalStateException("A running job was started from the"
                    + " checkpoints of job " + result.jobId() + " (checkpoints.restore-from); they are kept while it"
                    + " runs. Delete them once that job has ended."));
        }
        if (inFlight.contains(result.jobId())) {
            return CompletableFuture.failedFuture(new IllegalStateException("The checkpoints of job "
                    + result.jobId() + " are being deleted right now; retry in a moment to see the outcome"));
        }
        return run(session, result, false, true, 0).thenApply(EndedJobCleanup.Outcome::deletion);
    }

    private void scheduleSweep(UUID session) {
        if (!session.equals(context.leaderSession())) {
            return;
        }
        if (nextSweep != null) {
            nextSweep.cancel();
        }
        nextSweep = mainThread.schedule(() -> sweep(session), retention.sweepInterval());
    }

    /** Deletes the checkpoints of ended jobs whose retention has passed (and retries pending deletions). */
    void sweep(UUID session) {
        mainThread.assertRunningInMainThread();
        if (!session.equals(context.leaderSession())) {
            return;
        }
        nextSweep = null;
        long now = clock.currentTimeMillis();
        for (JobResult r : context.endedJobs()) {
            boolean due = r.mayHaveCheckpoints() && (r.deleteCheckpoints() || retention.expired(r, now));
            if (due && !inFlight.contains(r.jobId()) && !context.inUse(r.jobId())) {
                if (!r.deleteCheckpoints()) {
                    LOG.info("The retained checkpoints of job {} (ended {} at {}) expired after {}"
                                    + " (checkpoints.ended-job-retention); deleting them from {}", r.jobId(), r.status(),
                            java.time.Instant.ofEpochMilli(r.endTimestampMillis()), retention.checkpointRetention(),
                            r.checkpointsLocation());
                }
                run(session, r, false, true, 0);
            }
        }
        forgetOld(session, now);
        scheduleSweep(session);
    }

    /**
     * Forgets the ended jobs older than the retention and, while more than the count are remembered, those that
     * ended first; never one with checkpoints left, whose clean-up runs, or that is in use.
     */
    private void forgetOld(UUID session, long now) {
        List<JobResult> ended = new ArrayList<>(context.endedJobs());
        ended.sort(Comparator.comparingLong(JobResult::endTimestampMillis));
        int excess = ended.size() - forgetting.size() - retention.maxEndedJobs();
        int expired = 0;
        int beyondCount = 0;
        for (JobResult r : ended) {
            JobId id = r.jobId();
            boolean old = retention.jobExpired(r, now);
            if ((!old && excess <= 0) || forgetting.contains(id) || r.mayHaveCheckpoints() || inFlight.contains(id)
                    || context.inUse(id)) {
                continue;
            }
            if (old) {
                expired++;
            } else {
                beyondCount++;
            }
            excess--;
            forget(session, r);
        }
        if (expired + beyondCount > 0) {
            LOG.info("Forgetting {} ended job(s): {} ended more than {} ago (jobmanager.ended-jobs.retention), {} beyond"
                    + " the {} most recent (jobmanager.ended-jobs.max-count)", expired + beyondCount, expired,
                    retention.jobRetention(), beyondCount, retention.maxEndedJobs());
        }
    }

    /** Removes the job's result (and graph and jar, if left) in the HA services, then its record; no retry. */
    private void forget(UUID session, JobResult result) {
        JobId id = result.jobId();
        forgetting.add(id);
        LeaderElection election = context.dispatcherElection();
        CompletableFuture.runAsync(() -> {
            try {
                cleanup.forget(result, election, session);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, ioExecutor).whenCompleteAsync((ignored, error) -> {
            forgetting.remove(id);
            if (error != null) {
                LOG.warn("Could not forget the ended job {}: {}; the next sweep tries again", id,
                        JobResult.describe(Futures.unwrap(error)));
                return;
            }
            LOG.debug("Forgot the ended job {} ({}, ended at {})", id, result.status(),
                    java.time.Instant.ofEpochMilli(result.endTimestampMillis()));
            context.forgotten(result);
        }, mainThread);
    }

    /**
     * Runs one clean-up on the I/O executor. {@code attempt} > 0: retried with backoff on failure while
     * {@code session} leads; 0: not retried (the next sweep or request tries again).
     */
    private CompletableFuture<EndedJobCleanup.Outcome> run(UUID session, JobResult result, boolean graph,
                                                           boolean checkpoints, int attempt) {
        JobId id = result.jobId();
        inFlight.add(id);
        LeaderElection election = context.dispatcherElection();
        return CompletableFuture.supplyAsync(() -> {
            try {
                return cleanup.clean(result, graph, checkpoints, election, session);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, ioExecutor).whenCompleteAsync((outcome, error) -> {
            inFlight.remove(id);
            if (outcome != null) {
                CheckpointsDeletion d = outcome.deletion();
                if (d != null) {
                    LOG.info("Deleted the checkpoints of the ended job {}: {} in {}", id, d.deletedCheckpointIds(),
                            d.location() == null ? "(no location recorded; HA pointers removed)" : d.location());
                }
                context.resultChanged(outcome.result());
                return;
            }
            Throwable cause = Futures.unwrap(error);
            if (attempt > 0 && session.equals(context.leaderSession())) {
                Duration delay = backoff.delayAfter(attempt, random);
                LOG.warn("Could not clean up after the ended job {} (attempt {}): {}; retrying in {} ms", id, attempt,
                        JobResult.describe(cause), delay.toMillis());
                mainThread.schedule(() -> {
                    if (session.equals(context.leaderSession()) && !inFlight.contains(id)) {
                        run(session, result, graph, checkpoints, attempt + 1);
                    }
                }, delay);
            } else {
                LOG.warn("Could not delete the checkpoints of the ended job {}: {}; {}", id, JobResult.describe(cause),
                        attempt == 0 && retention.expires() ? "the next sweep tries again" : "request it again");
            }
        }, mainThread);
    }
}
