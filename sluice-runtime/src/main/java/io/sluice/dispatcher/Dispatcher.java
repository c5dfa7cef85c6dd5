package io.sluice.dispatcher;

import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.LeaderContender;
import io.sluice.ha.LeaderElection;
import io.sluice.job.JobResult;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.protocol.CheckpointsDeletion;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobSummary;
import io.sluice.protocol.UnknownJobException;
import io.sluice.rpc.Acknowledge;
import io.sluice.rpc.MainThreadExecutor;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job manager's front door: accepts jobs, keeps one {@link JobRecord} per job (in a {@link
 * JobTable}), answers status, listing and cancel, and recovers the stored jobs while it leads.
 *
 * <p>Leadership: at {@link #start()} the Dispatcher joins the cluster's dispatcher election
 * ({@link io.sluice.ha.HighAvailabilityServices#dispatcherLeaderElection}, contender id = the job
 * manager id). Only while it leads does it recover the stored jobs ({@link StoredJobRecovery}) and
 * accept submissions ({@link JobSubmission}); the job graph put of a submission runs inside the
 * dispatcher leadership's {@code runIfLeader}, so a deposed leader cannot store a job that the new
 * leader's recovery would miss. A standby rejects submissions naming the leader ("This job manager
 * (jobmanager-1) is a standby; submit to the leader jobmanager-0"), answers status and listing for
 * the jobs it knows (those it ran and that ended), and holds result requests until it leads and has
 * listed the stored jobs. When it loses dispatcher leadership it closes its job runners (their jobs
 * are suspended, and stay stored); when it gains it, it lists and recovers all stored jobs again.
 * Per-job leader elections stay as they are and fence each job's writes.
 *
 * <p>Threading: all of the Dispatcher's state lives on {@code mainThread}, and every entry point
 * checks it runs there ({@link MainThreadExecutor#assertRunningInMainThread()}, always on); the
 * gateway methods may be called from any thread and hand their work to it, except the list and
 * status calls ({@link #listJobs()}, {@link #requestJobDetails}), which read published snapshots on
 * the calling thread: where each job stands (published by this main thread, {@link JobTable}) and
 * what its runner shows (published by the runner's thread). Each job's runner runs on its own main
 * thread ({@code runnerThreads}), so no job's start, recovery, deployment or end runs here, and a
 * status or list call never waits behind any job's work, nor behind this thread. Every store access runs on the I/O executor, so answers never
 * wait for storage; stored jobs whose graph is not read yet are reported INITIALIZING ("reading
 * the job graph", or "queued for recovery: N jobs ahead") rather than unknown.
 *
 * <p>User code: for every job it runs, the Dispatcher holds a {@link io.sluice.jar.ClassLoaderLease}
 * from {@link io.sluice.jar.UserCodeClassLoaders} (taken on the I/O executor when the job is stored or
 * its graph read back), and closes it once the job's runner has closed.
 */
public final class Dispatcher implements DispatcherGateway {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    private final DispatcherCore core;
    private final JobRunners runners;
    private final StoredJobRecovery recovery;
    private final JobSubmission submission;
    private final JobQueries queries;
    /** Cleans up after ended jobs while this Dispatcher leads (see {@link EndedJobJanitor}). Main thread. */
    private final EndedJobJanitor janitor;
    /** The savepoints of the jobs, taken here or read back from the HA services (see {@link DurableSavepoints}). Main thread. */
    private final DurableSavepoints savepoints;
    /** Told after every change of {@link #isLeader()}; must not block (any thread may be calling). */
    private volatile Runnable leadershipListener = () -> { };

    /** A Dispatcher with the default retention of ended jobs' checkpoints. */
    public Dispatcher(JobManagerServices services, MainThreadExecutor mainThread) {
        this(services, mainThread, EndedJobRetention.defaults());
    }

    /** @param retention how long ended jobs' retained checkpoints are kept ({@code checkpoints.ended-job-retention}) */
    public Dispatcher(JobManagerServices services, MainThreadExecutor mainThread, EndedJobRetention retention) {
        this(services, mainThread, retention, jobId -> mainThread);
    }

    /**
     * @param runnerThreads the main thread of each job's runner (in production a serialized executor per job
     *                      over a shared pool; in tests manually triggered ones)
     */
    public Dispatcher(JobManagerServices services, MainThreadExecutor mainThread, EndedJobRetention retention,
                      Function<JobId, MainThreadExecutor> runnerThreads) {
        this.core = new DispatcherCore(services, mainThread);
        this.janitor = new EndedJobJanitor(retention, new EndedJobCleanup(services.ha(), services.checkpointStorages()),
                mainThread, services.ioExecutor(), services.clock(), services.recoveryBackoff(), services.random(),
                new JanitorContext());
        this.runners = new JobRunners(core, runnerThreads, janitor::jobEnded);
        this.recovery = new StoredJobRecovery(core, runners, (session, stored) ->
                janitor.leading(session, stored.ids(), stored.results()));
        this.submission = new JobSubmission(core, runners);
        this.queries = new JobQueries(core);
        this.savepoints = new DurableSavepoints(core);
    }

    /** What the janitor may see of the Dispatcher: ended jobs and which ones are still in use. Main thread. */
    private final class JanitorContext implements EndedJobJanitor.Context {
        @Override
        public UUID leaderSession() {
            return core.leaderSession;
        }

        @Override
        public LeaderElection dispatcherElection() {
            return core.election;
        }

        @Override
        public Collection<JobResult> endedJobs() {
            return core.jobs.inStage(JobExecution.Ended.class).stream()
                    .map(r -> ((JobExecution.Ended) r.execution()).result()).toList();
        }

        @Override
        public void resultChanged(JobResult result) {
            JobRecord record = core.jobs.get(result.jobId());
            if (record != null && record.execution() instanceof JobExecution.Ended ended) {
                core.jobs.update(record, new JobExecution.Ended(result, ended.details()));
            }
        }

        @Override
        public boolean inUse(JobId jobId) {
            return runsOrStartedFrom(jobId);
        }

        @Override
        public void forgotten(JobResult result) {
            JobRecord record = core.jobs.get(result.jobId());
            if (record != null && record.execution() instanceof JobExecution.Ended) {
                core.jobs.enter(record, null);
            }
        }
    }

    /** Whether {@code jobId} runs (or is recovered) here, or a job running here was started from its checkpoints. */
    private boolean runsOrStartedFrom(JobId jobId) {
        if (core.jobs.isActive(jobId)) {
            return true;
        }
        return core.jobs.runners().stream().anyMatch(r -> r.jobGraph().config().hasRestoreFrom()
                && r.jobGraph().config().restoreFrom().contains(jobId.value()));
    }

    /** Joins the dispatcher election; stored jobs are recovered once leadership is granted. Returns at once. */
    public void start() {
        core.mainThread.execute(() -> {
            core.assertMainThread();
            if (core.closed || core.election != null) {
                return;
            }
            core.election = core.services.ha().dispatcherLeaderElection(core.services.contenderId());
            core.election.startLeaderElection(new LeaderContender() {
                @Override
                public void grantLeadership(UUID leaderSessionId) {
                    core.mainThread.execute(() -> onGrant(leaderSessionId));
                }

                @Override
                public void revokeLeadership() {
                    core.mainThread.execute(Dispatcher.this::onRevoke);
                }

                @Override
                public String description() {
                    return "dispatcher of " + core.services.contenderId();
                }
            });
        });
    }

    /**
     * Registers a callback run (on this Dispatcher's main thread) after every change of
     * {@link #isLeader()}; it must not block. Replaces any earlier one.
     */
    public void onLeadershipChange(Runnable listener) {
        this.leadershipListener = Objects.requireNonNull(listener, "listener");
    }

    /** The job manager id, which is this Dispatcher's contender id in the dispatcher election. */
    public String id() {
        return core.id();
    }

    /**
     * Whether this Dispatcher currently leads and acts on it (set on its main thread when it handles
     * the grant, so a true answer means it accepts submissions). Any thread; from memory.
     */
    public boolean isLeader() {
        return core.leading;
    }

    /**
     * The dispatcher leader session this Dispatcher acts on now, or {@code null} while it does not
     * lead, also as soon as the HA services revoked it (before its main thread handled that). The
     * fencing token of this job manager's RPC endpoints. Any thread; from memory.
     */
    public UUID currentLeaderSession() {
        UUID s = core.leaderSession;
        LeaderElection election = core.election;
        return s != null && core.leading && election != null && election.hasLeadership(s) ? s : null;
    }

    private void onGrant(UUID session) {
        core.assertMainThread();
        if (core.closed) {
            return;
        }
        if (core.leaderSession != null) {
            onRevoke();
        }
        LOG.info("{} leads the dispatcher (session {}); recovering the stored jobs", id(), session);
        // Before the session: a status call that sees the session also sees the listing (JobQueries).
        core.listingJobs = true;
        core.leaderSession = session;
        core.leading = true;
        leadershipListener.run();
        recovery.recover(session);
        savepoints.load(session); // beside the jobs' recovery, never ahead of it
    }

    private void onRevoke() {
        core.assertMainThread();
        if (core.leaderSession == null) {
            return;
        }
        LOG.info("{} no longer leads the dispatcher; suspending its {} job(s)", id(), core.jobs.runners().size());
        core.leaderSession = null;
        janitor.notLeading();
        core.leading = false;
        leadershipListener.run();
        recovery.stop();
        savepoints.stop();
        // Suspends each job and leaves its election once its tasks ended; the new leader recovers it.
        runners.closeAllForLostLeadership();
    }

    /** Runs {@code call} on the main thread (checked there) and passes its answer on. */
    private <T> CompletableFuture<T> onMain(Supplier<CompletableFuture<T>> call) {
        return CompletableFuture.supplyAsync(() -> {
            core.assertMainThread();
            return call.get();
        }, core.mainThread).thenCompose(f -> f);
    }

    @Override
    public CompletableFuture<JobId> submitJob(JobGraph jobGraph) {
        return submission.submit(jobGraph);
    }

    @Override
    public CompletableFuture<Optional<JobGraph>> requestJobGraph(JobId jobId) {
        return onMain(() -> CompletableFuture.completedFuture(core.jobs.execution(jobId)
                .filter(JobExecution.Running.class::isInstance)
                .map(e -> ((JobExecution.Running) e).runner().jobGraph())));
    }

    /** From published values on the calling thread: never waits for the main thread or any job's thread. */
    @Override
    public CompletableFuture<List<JobSummary>> listJobs() {
        return CompletableFuture.completedFuture(queries.list());
    }

    /**
     * From published values on the calling thread (a running job's task counters are asked from its
     * task executors): never waits for the main thread or any job's thread.
     */
    @Override
    public CompletableFuture<JobDetails> requestJobDetails(JobId jobId) {
        return queries.details(jobId);
    }

    @Override
    public CompletableFuture<Acknowledge> cancelJob(JobId jobId) {
        return onMain(() -> cancel(jobId));
    }

    private CompletableFuture<Acknowledge> cancel(JobId jobId) {
        JobExecution execution = core.jobs.execution(jobId).orElse(null);
        if (execution instanceof JobExecution.Running running) {
            return running.runner().cancel();
        }
        if (execution instanceof JobExecution.Ended) {
            return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
        }
        if (execution instanceof JobExecution.ReadingGraph && core.leaderSession != null) {
            recovery.cancel(jobId);
            return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
        }
        if (execution instanceof JobExecution.ReadingGraph || core.listingJobs) {
            return CompletableFuture.failedFuture(new IllegalStateException("Job " + jobId + " is still being"
                    + " recovered by this job manager (its graph is being read); retry the cancel in a moment"));
        }
        if (core.leaderSession == null) {
            return CompletableFuture.failedFuture(new UnknownJobException(jobId, core.standbyMessage("cancel at")));
        }
        return CompletableFuture.failedFuture(new UnknownJobException(jobId));
    }

    /**
     * Deletes the retained checkpoints of an ended job now. Refused ({@link IllegalStateException}) while
     * the job runs or is being recovered, or a running job was started from its checkpoints; a standby
     * names the leader.
     */
    @Override
    public CompletableFuture<CheckpointsDeletion> deleteCheckpoints(JobId jobId) {
        return onMain(() -> {
            JobExecution execution = core.jobs.execution(jobId).orElse(null);
            if (execution instanceof JobExecution.Running running) {
                return CompletableFuture.failedFuture(new IllegalStateException("Job " + jobId + " is "
                        + running.runner().status() + ": the checkpoints of a job that has not ended are never"
                        + " deleted. Cancel it first (sluice cancel " + jobId + "), then delete them."));
            }
            if (execution instanceof JobExecution.ReadingGraph || execution instanceof JobExecution.Submitting) {
                return CompletableFuture.failedFuture(new IllegalStateException("Job " + jobId + " is being"
                        + " recovered by this job manager and has not ended; its checkpoints are never deleted while"
                        + " it may run. Cancel it first, then delete them."));
            }
            if (!(execution instanceof JobExecution.Ended ended)) {
                return CompletableFuture.failedFuture(core.leaderSession == null
                        ? new UnknownJobException(jobId, core.standbyMessage("delete checkpoints at"))
                        : new UnknownJobException(jobId));
            }
            return janitor.deleteNow(ended.result());
        });
    }

    @Override
    public CompletableFuture<io.sluice.checkpoint.Savepoint> triggerSavepoint(JobId jobId, String targetDirectory,
                                                                             boolean stop) {
        return onMain(() -> {
            JobExecution execution = core.jobs.execution(jobId).orElse(null);
            if (execution instanceof JobExecution.Running running) {
                return running.runner().triggerSavepoint(targetDirectory, stop)
                        .thenComposeAsync(savepoints::record, core.mainThread);
            }
            if (execution instanceof JobExecution.Ended ended) {
                return CompletableFuture.failedFuture(new IllegalStateException("Job " + jobId + " has ended ("
                        + ended.result().status() + "): a savepoint is taken only of a running job. Its retained"
                        + " checkpoints, if any, restore like a savepoint (--restore-from latest:" + jobId + ")."));
            }
            if (execution != null) {
                return CompletableFuture.failedFuture(new IllegalStateException("Job " + jobId + " is still being"
                        + " started or recovered by this job manager; try the savepoint again once it runs"));
            }
            return CompletableFuture.failedFuture(core.leaderSession == null
                    ? new UnknownJobException(jobId, core.standbyMessage("take a savepoint at"))
                    : new UnknownJobException(jobId));
        });
    }

    @Override
    public CompletableFuture<List<io.sluice.checkpoint.Savepoint>> listSavepoints(JobId jobId) {
        return onMain(() -> savepoints.list(jobId));
    }

    @Override
    public CompletableFuture<JobResult> requestJobResult(JobId jobId) {
        return onMain(() -> {
            JobExecution execution = core.jobs.execution(jobId).orElse(null);
            if (execution instanceof JobExecution.Ended ended) {
                return CompletableFuture.completedFuture(ended.result());
            }
            if (core.closed) {
                return CompletableFuture.failedFuture(new UnknownJobException(jobId,
                        "The job manager " + id() + " is shutting down; ask the dispatcher leader"));
            }
            if (execution != null || core.listingJobs || core.leaderSession == null) {
                // Running or being recovered here, or not known yet (listing, or a standby that may lead
                // later): completed when the job ends here, or failed if the next listing does not know it.
                // The same future survives a job runner being replaced across a dispatcher leadership change.
                return core.jobs.getOrCreate(jobId).resultWaiter().thenApply(r -> r);
            }
            return CompletableFuture.failedFuture(new UnknownJobException(jobId));
        });
    }

    /**
     * Leaves the dispatcher election (a standby takes over) and all job elections, and suspends the
     * running jobs (they stay stored for the next leader). Pending result requests fail.
     */
    public CompletableFuture<Void> close() {
        return onMain(() -> {
            core.closed = true;
            core.leading = false;
            leadershipListener.run();
            core.leaderSession = null;
            janitor.notLeading();
            savepoints.stop();
            if (core.election != null) {
                core.election.close();
            }
            for (JobRecord record : core.jobs.matching(JobRecord::hasResultWaiter)) {
                record.failResult(new UnknownJobException(record.id(), "The job manager " + id()
                        + " stopped before the job ended here; ask the dispatcher leader"));
            }
            return runners.closeAll();
        });
    }
}
