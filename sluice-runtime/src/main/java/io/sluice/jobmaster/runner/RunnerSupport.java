package io.sluice.jobmaster.runner;

import io.sluice.graph.JobGraph;
import io.sluice.ha.LeaderElection;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.metrics.job.JobMetrics;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobHealth;
import io.sluice.protocol.RecoveryStatus;
import io.sluice.restart.CrashLoop;
import io.sluice.restart.CrashLoopDetector;
import io.sluice.rpc.MainThreadExecutor;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * What every state of one runner shares: the job, the services, the runner's main thread, its
 * status history and meters, its election, the crash-loop detector of recovery rounds, and how
 * its job details are put together. Holds no lifecycle state of its own.
 *
 * <p>Threading: the runner's main thread, except {@link #recoveryHealth()} (any thread: the metrics'
 * scrape thread reads it).
 */
final class RunnerSupport {
    final JobGraph jobGraph;
    final JobManagerServices services;
    final MainThreadExecutor mainThread;
    final StatusHistory history;
    final JobMetrics metrics;
    private final Supplier<LeaderElection> election;
    private final Supplier<UUID> latestGrant;
    /**
     * Rounds of recovery that found no readable retained checkpoint: the same failure again and again
     * is a restore that can never succeed by itself (shown while no job master runs).
     */
    private final CrashLoopDetector recoveryLoops;
    /** {@link #recoveryLoops}' crash loop, published for the metrics' scrape thread; null when none. */
    private volatile CrashLoop recoveryLoop;

    RunnerSupport(JobGraph jobGraph, JobManagerServices services, MainThreadExecutor mainThread, JobMetrics metrics,
                  Supplier<LeaderElection> election, Supplier<UUID> latestGrant) {
        this.jobGraph = jobGraph;
        this.services = services;
        this.mainThread = mainThread;
        this.metrics = metrics;
        this.history = new StatusHistory(services.clock(), metrics, mainThread);
        this.election = election;
        this.latestGrant = latestGrant;
        this.recoveryLoops = new CrashLoopDetector(services.clock(), jobGraph.jobId().value());
    }

    String description() {
        return "job manager runner of job " + jobGraph.jobId() + " on " + services.contenderId();
    }

    LeaderElection election() {
        return election.get();
    }

    /** The session of the latest grant the election delivered and no revoke followed; null if none. */
    UUID latestGrant() {
        return latestGrant.get();
    }

    RecoveryProgress newProgress() {
        return new RecoveryProgress(services.clock());
    }

    /** A recovery round found no readable retained checkpoint. */
    void recordUnreadableRound(Throwable cause) {
        recoveryLoops.record(new CrashLoopDetector.Failure(cause.getClass().getName(), cause.getMessage(), null, -1,
                false, true));
        recoveryLoop = recoveryLoops.current();
    }

    /** While no job master runs: the crash loop of recovery rounds, if any. Any thread. */
    JobHealth recoveryHealth() {
        CrashLoop loop = recoveryLoop;
        return loop == null || history.status() != JobStatus.INITIALIZING ? JobHealth.NONE : new JobHealth(loop, -1, 0);
    }

    /**
     * The view while no job master speaks for the job: status, transitions, and (while INITIALIZING)
     * the recovery progress read live from {@code progress} (null: none). Main thread (or the runner's
     * constructor, before the runner is shared).
     */
    StatusView.Initializing initializingView(JobStatus st, String failureMessage, RecoveryProgress progress) {
        return new StatusView.Initializing(jobGraph.jobId(), jobGraph.name(), st, history.transitions(), failureMessage,
                progress, recoveryHealth());
    }

    /** Details while no job master speaks for the job, as they are now. Main thread. */
    JobDetails initializingDetails(JobStatus st, String failureMessage, RecoveryProgress progress) {
        return initializingView(st, failureMessage, progress).now();
    }

    /** The view while {@code jm} speaks for the job. */
    StatusView.OfJobMaster jobMasterView(RunningJobMaster jm) {
        return new StatusView.OfJobMaster(jm.jobMaster(), history.first(), jm.recovery());
    }

    /** A job master's details as the runner shows them (its first transition first; {@code recovery} unless it reports its own). */
    JobDetails fromJobMaster(JobDetails d, RecoveryStatus recovery) {
        return StatusView.OfJobMaster.fromJobMaster(history.first(), d, recovery);
    }

    /** {@code d} with {@code recovery} shown (a result being recorded). */
    static JobDetails withRecovery(JobDetails d, RecoveryStatus recovery) {
        return new JobDetails(d.jobId(), d.name(), d.status(), d.transitions(), d.vertices(), d.checkpoints(),
                d.restarts(), d.failureMessage(), recovery, d.restartHistory(), d.recentFailures(), d.health());
    }
}
