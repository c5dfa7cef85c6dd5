package io.sluice.jobmaster.runner;

import io.sluice.checkpoint.CheckpointRetention;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.LeaderContender;
import io.sluice.ha.LeaderElection;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.jobmaster.RecoveryReads;
import io.sluice.metrics.job.JobMetrics;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobHealth;
import io.sluice.protocol.JobSummary;
import io.sluice.rpc.Acknowledge;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.rpc.PublishingMainThreadExecutor;
import io.sluice.slots.SlotPool;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one job on this job manager whenever it holds the job's leadership.
 *
 * <p>Lifecycle: a sealed {@link RunnerState}, one class per state ({@link NotLeading}, {@link
 * Recovering}, {@link Leading}, {@link Suspending}, {@link Ending}, {@link Ended}, {@link Closed});
 * each reaches this runner only through its own {@code Context}, whose methods end in {@link
 * #transition}, the one place the state changes: it logs {@code from -> to} and refuses a
 * transition the table does not allow, one from a state that is no longer current (a stale
 * callback), and one started while another is in progress (re-entrant).
 *
 * <p>Ordering rules (each checked by {@code JobManagerRunnerTest}):
 * <ul>
 *   <li><b>One chain for grant and revoke.</b> Both run as operations of one {@link
 *       LeadershipChain}; a revoke's operation completes only when the job master it suspends has
 *       stopped all its tasks, so a grant that follows starts recovery (and a new job master) only
 *       then. Never two task sets of one job. Every asynchronous callback re-checks that its state,
 *       and so its leader session, is still current; a stale one does nothing.</li>
 *   <li><b>The end wins.</b> Once the job is ending (cancelled, failed, finished) no recovery attempt,
 *       retry or job master starts any more, whatever was queued before ({@link Ending}).</li>
 *   <li><b>The result is durable before anything is cleaned up</b> ({@link ResultRecorder}); only then
 *       does {@link #resultFuture()} complete.</li>
 *   <li><b>Unreadable checkpoints suspend, not fail.</b> When every retained checkpoint is unreadable
 *       the job stays INITIALIZING with its graph and checkpoints kept and retries on a slow backoff
 *       ({@link Recovering}).</li>
 *   <li><b>Recovery reads are bounded and fair</b>: each attempt waits for its turn in the job
 *       manager's {@link RecoveryReads} (status: "queued for recovery: N jobs ahead").</li>
 * </ul>
 *
 * <p>Threading: all state lives on {@code mainThread}, the runner's own main thread (given by its
 * owner). The public methods may be called from any thread: they run at once when called on the
 * main thread and are handed to it otherwise, except the queries. After every command on its main
 * thread and every transition the runner publishes what status calls show, one immutable {@link
 * StatusView} in a volatile field (written only on the main thread, checked); {@link
 * #requestJobDetails()}, {@link #status()}, {@link #startTimeMillis()}, {@link
 * #lastTransitionMillis()} and {@link #health()} read published values and never submit anything to
 * the runner's or its job master's thread, so neither the job list nor a status call queues behind
 * this job's work or another's. Election callbacks are handed to the main thread; blocking work runs
 * on the I/O executor. Each job master has its own main thread.
 */
public final class JobManagerRunner implements LeaderContender {
    private static final Logger LOG = LoggerFactory.getLogger(JobManagerRunner.class);

    private final RunnerSupport support;
    private final MainThreadExecutor mainThread;
    private final long recoveryTicket;
    private final LeadershipChain chain;
    private final CheckpointRecovery checkpointRecovery;
    private final JobMasterStarter starter;
    private final Transitions transitions = new Transitions();
    private final CompletableFuture<JobResult> resultFuture = new CompletableFuture<>();
    private final JobMetrics metrics;
    /** Main thread; published for {@link #health()}. */
    private volatile RunnerState state;
    /** What status calls show: {@code state.view()}, published on the main thread after every change. */
    private volatile StatusView view;
    private boolean inTransition;
    private LeaderElection election;
    /** The session of the latest grant delivered with no revoke after it; null while none. Main thread. */
    private UUID latestGrant;
    /** The job master that has not ended yet (running or suspending), or null. Main thread. */
    private RunningJobMaster live;
    private CompletableFuture<Void> closeFuture;

    /** A runner whose recovery queues behind every job known before it. */
    public JobManagerRunner(JobGraph jobGraph, JobManagerServices services, MainThreadExecutor mainThread) {
        this(jobGraph, services, mainThread, services.recoveryReads().nextTicket());
    }

    /**
     * @param mainThread     this runner's own main thread
     * @param recoveryTicket the job's place in the recovery order ({@link RecoveryReads#nextTicket()}), kept
     *                       from when the job became known to this job manager (say, when its graph was read)
     */
    public JobManagerRunner(JobGraph jobGraph, JobManagerServices services, MainThreadExecutor mainThread,
                            long recoveryTicket) {
        this.mainThread = new PublishingMainThreadExecutor(mainThread, this::publish);
        this.recoveryTicket = recoveryTicket;
        this.metrics = new JobMetrics(services.checkpointStorages().meterRegistry(), jobGraph.jobId(), jobGraph.name(),
                JobStatus.INITIALIZING, services.clock());
        this.support = new RunnerSupport(jobGraph, services, this.mainThread, metrics, () -> election, () -> latestGrant);
        this.chain = new LeadershipChain(this.mainThread, support.description());
        this.checkpointRecovery = new CheckpointRecovery(jobGraph, services, () -> election);
        this.starter = new JobMasterStarter(support, this::onJobMasterStatus);
        this.state = new NotLeading(transitions, support);
        this.view = state.view(); // before the runner is shared: the only write off its main thread
        resultFuture.whenComplete((result, error) -> metrics.close());
        metrics.healthFrom(support::recoveryHealth, null);
    }

    public JobId jobId() {
        return support.jobGraph.jobId();
    }

    public JobGraph jobGraph() {
        return support.jobGraph;
    }

    /** The latest known status. Any thread. */
    public JobStatus status() {
        return support.history.status();
    }

    /** Wall-clock time of the first transition (when this runner was created). Any thread. */
    public long startTimeMillis() {
        return support.history.startTimeMillis();
    }

    /** Wall-clock time of the latest status change seen by this runner. Any thread. */
    public long lastTransitionMillis() {
        return support.history.lastTransitionMillis();
    }

    /** The job's line in the job list: one published status snapshot, the times, the health. Any thread. */
    public JobSummary summary() {
        StatusHistory.Snapshot h = support.history.snapshot();
        return new JobSummary(jobId(), jobGraph().name(), h.status(), startTimeMillis(), h.lastTransitionMillis(),
                health());
    }

    /**
     * A crash loop or stale checkpoints, for the job list: of the running job master (from its
     * memory, without a hop to its thread), or of the recovery rounds while none runs. Any thread.
     */
    public JobHealth health() {
        return state.health();
    }

    /**
     * Completes on the runner's main thread when the job is globally terminal (FINISHED, FAILED,
     * CANCELED) and its result is durable in the job result store.
     */
    public CompletableFuture<JobResult> resultFuture() {
        return resultFuture;
    }

    /** Joins the leader election (on the main thread). Any thread. */
    public void start() {
        onMainThread(() -> {
            election = support.services.ha().jobLeaderElection(jobId(), support.services.contenderId());
            election.startLeaderElection(this);
            return CompletableFuture.completedFuture(null);
        });
    }

    @Override
    public void grantLeadership(UUID leaderSessionId) {
        mainThread.execute(() -> onGrant(leaderSessionId));
    }

    @Override
    public void revokeLeadership() {
        mainThread.execute(this::onRevoke);
    }

    @Override
    public String description() {
        return support.description();
    }

    private void onGrant(UUID s) {
        mainThread.assertRunningInMainThread();
        if (latestGrant != null && !latestGrant.equals(s)) {
            onRevoke(); // a grant without the revoke in between: the old session ends first
        }
        latestGrant = s;
        if (chain.busy()) {
            state.grantWaiting(s);
        }
        chain.enqueue("grant of session " + s, () -> {
            if (!s.equals(latestGrant)) {
                LOG.info("{}: the grant of session {} was revoked before its turn; skipped", description(), s);
                return CompletableFuture.completedFuture(null);
            }
            return state.grant(s);
        });
    }

    private void onRevoke() {
        mainThread.assertRunningInMainThread();
        if (latestGrant == null) {
            return;
        }
        latestGrant = null;
        chain.enqueue("revoke", () -> state.revoke());
    }

    /** Cancels the job: forwarded to the job master, or ends recovery at once. Any thread. */
    public CompletableFuture<Acknowledge> cancel() {
        return onMainThread(() -> state.cancel());
    }

    /** A savepoint, then a stop with {@code stop}: forwarded to the job master; refused while it has none. Any thread. */
    public CompletableFuture<io.sluice.checkpoint.Savepoint> triggerSavepoint(String targetDirectory, boolean stop) {
        return onMainThread(() -> state.triggerSavepoint(targetDirectory, stop));
    }

    /**
     * The job's details from the published {@link StatusView}: complete at once while no job master
     * runs; once one does, its published details with the task counters of its task executors (at
     * most 100 ms old; a task executor that does not answer within 2 s is left out). Any thread;
     * nothing is submitted to the runner's or the job master's thread.
     */
    public CompletableFuture<JobDetails> requestJobDetails() {
        return view.details();
    }

    /** Publishes what status calls show now. Main thread (checked). */
    private void publish() {
        mainThread.assertRunningInMainThread();
        view = state.view();
    }

    /**
     * Job manager shutdown (or the loss of the dispatcher leadership): nothing starts any more, the
     * job master (if any) suspends, and once its tasks have ended the runner leaves the election, so
     * a standby never runs the job while this one's tasks still do. Any thread; the returned future
     * completes on the main thread.
     */
    public CompletableFuture<Void> close() {
        return onMainThread(() -> {
            if (closeFuture != null) {
                return closeFuture;
            }
            RunnerState from = state;
            from.close();
            transition(from, closedFrom(from));
            closeFuture = live != null ? live.ended() : CompletableFuture.completedFuture(null);
            return closeFuture.whenComplete((ignored, error) -> {
                metrics.close();
                if (election != null) {
                    election.close();
                }
            });
        });
    }

    private Closed closedFrom(RunnerState from) {
        if (from instanceof Ended ended) {
            return new Closed(support, ended.finalDetails(), true);
        }
        if (from instanceof Ending ending) {
            return new Closed(support, ending.lastDetails(), true);
        }
        return new Closed(support, null, false);
    }

    // ------------------------------------------------------------------ transitions

    /** The current state (tests). Main thread. */
    RunnerState state() {
        return state;
    }

    /**
     * The one place the state changes: refuses a transition from a state that is no longer current
     * (a stale callback), one the table does not allow, and one started while another runs
     * (re-entrant, for example from a state's {@code onEnter}); logs {@code from -> to}. Main thread.
     */
    void transition(RunnerState from, RunnerState to) {
        mainThread.assertRunningInMainThread();
        if (inTransition) {
            throw new IllegalStateException(description() + ": re-entrant transition " + from.name() + " -> "
                    + to.name() + " refused (another transition is in progress)");
        }
        if (from != state) {
            throw new IllegalStateException(description() + ": transition " + from.name() + " -> " + to.name()
                    + " refused: " + from.name() + " is no longer the current state (" + state.name() + ")");
        }
        if (!RunnerTransitions.allowed(from, to)) {
            throw new IllegalStateException(description() + ": illegal transition " + from.name() + " -> "
                    + to.name() + " refused");
        }
        inTransition = true;
        try {
            LOG.info("{}: {} -> {}", description(), from.name(), to.name());
            from.onLeave();
            state = to;
            to.onEnter();
        } finally {
            inTransition = false;
        }
        publish(); // before anything the transition completes (the result future) is seen elsewhere
    }

    private void onJobMasterStatus(RunningJobMaster from, JobStatus status) {
        if (state instanceof Leading leading) {
            leading.jobMasterStatus(from, status);
        }
    }

    private void onJobMasterEnded(RunningJobMaster jm, JobResult result) {
        if (live == jm) {
            live = null;
            metrics.healthFrom(support::recoveryHealth, null);
            support.services.slotPool().release(jobId());
        }
        if (jm.thread() instanceof DedicatedMainThreadExecutor dedicated) {
            dedicated.retire(); // late messages (task reports, status requests) still get answered
        }
        state.jobMasterEnded(jm, result);
        jm.ended().complete(null);
    }

    private <T> CompletableFuture<T> onMainThread(Supplier<CompletableFuture<T>> call) {
        if (mainThread.isMainThread()) {
            return call.get();
        }
        return CompletableFuture.supplyAsync(call, mainThread).thenCompose(f -> f);
    }

    private JobResult ending(JobResult result) {
        // The result names where the checkpoints are and whether they go, so that any later leader can finish the job.
        return result.withCheckpoints(support.jobGraph.config().checkpointDir(),
                CheckpointRetention.discards(result.status(), support.jobGraph.config().discardCheckpointsOnCancel()));
    }

    /** Every state's context: each method is one move, ending in {@link #transition}. */
    private final class Transitions implements NotLeading.Context, Recovering.Context, Leading.Context,
            Suspending.Context, Ending.Context {

        @Override
        public boolean isCurrent(RunnerState s) {
            return state == s;
        }

        @Override
        public void goToRecovering(NotLeading from, UUID session) {
            transition(from, new Recovering(this, support, session, checkpointRecovery));
        }

        @Override
        public CompletableFuture<Acknowledge> cancelInCurrentState() {
            return state.cancel();
        }

        @Override
        public void goToRecovering(Leading from, UUID session) {
            transition(from, new Recovering(this, support, session, checkpointRecovery));
        }

        @Override
        public void goToNotLeading(Recovering from) {
            transition(from, new NotLeading(this, support));
        }

        @Override
        public void goToNotLeading(Leading from) {
            transition(from, new NotLeading(this, support));
        }

        @Override
        public void goToNotLeading(Suspending from) {
            transition(from, new NotLeading(this, support));
        }

        @Override
        public void goToLeading(Recovering from, RunningJobMaster jobMaster) {
            live = jobMaster;
            transition(from, new Leading(this, support, jobMaster));
        }

        @Override
        public void goToSuspending(Leading from, RunningJobMaster jobMaster) {
            transition(from, new Suspending(this, support, jobMaster));
        }

        @Override
        public void goToEnding(Recovering from, JobResult result, UUID session, String failureMessage) {
            transition(from, new Ending(this, support, ending(result), null, session, null, failureMessage));
        }

        @Override
        public void goToEnding(Leading from, JobResult result, UUID session, JobDetails lastDetails) {
            transition(from, new Ending(this, support, ending(result), from.jobMaster().recovered().store(), session,
                    lastDetails, result.failureMessage()));
        }

        @Override
        public void goToEnding(Suspending from, JobResult result, UUID session, CompletedCheckpointStore store,
                               JobDetails lastDetails) {
            transition(from, new Ending(this, support, ending(result), store, session, lastDetails,
                    result.failureMessage()));
        }

        @Override
        public void goToEnded(Recovering from, JobResult alreadyFinished) {
            support.history.set(alreadyFinished.status());
            transition(from, new Ended(alreadyFinished,
                    support.initializingDetails(alreadyFinished.status(), null, null)));
            resultFuture.complete(alreadyFinished);
        }

        @Override
        public void goToEnded(Ending from, JobResult result, JobDetails finalDetails) {
            transition(from, new Ended(result, finalDetails));
            resultFuture.complete(result);
        }

        @Override
        public RunningJobMaster createJobMaster(UUID session, Recovered recovered, RecoveryProgress progress)
                throws SlotPool.NotEnoughSlotsException {
            return starter.create(session, recovered, progress);
        }

        @Override
        public void startJobMaster(RunningJobMaster jobMaster) {
            starter.start(jobMaster, JobManagerRunner.this::onJobMasterEnded);
        }

        @Override
        public RecoveryReads.Reservation startReads(Runnable io) {
            return support.services.recoveryReads().reserve(recoveryTicket, "recovery of job " + jobId(), io);
        }
    }
}
