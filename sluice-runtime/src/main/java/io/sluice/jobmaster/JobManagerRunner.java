package io.sluice.jobmaster;

import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointStats;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CheckpointRetention;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobHealth;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.protocol.RecoveryStatus;
import io.sluice.slots.SlotPool;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointRecoveryException;
import io.sluice.ha.CheckpointRecoveryFactory;
import io.sluice.ha.LeaderContender;
import io.sluice.ha.LeaderElection;
import io.sluice.restart.RestartStrategies;
import io.sluice.rpc.Acknowledge;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.protocol.TaskExecutorGateway;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one job on this job manager whenever it holds the job's leadership.
 *
 * <p>Lifecycle: joins the job's leader election. On a grant (session S) it recovers on the I/O
 * executor, once for the session: checks the job result store (a finished job is never run
 * again), creates the recovered checkpoint store (only the latest checkpoint's metadata is read),
 * reads the checkpoint to start from when the job has none of its own and {@code restoreFrom} is
 * set ({@link RestoreCheckpointResolver}), and creates the id counter, retrying storage errors with
 * backoff and jitter. Then it starts a {@link JobMaster} on the job master's own main thread. Until
 * then it answers status itself: {@code INITIALIZING} with {@link RecoveryStatus} (attempt,
 * pointers, metadata loaded, time, last error). On revocation it cancels the recovery in flight
 * (interrupting a hung storage call) and suspends the job master; writes of session S are fenced by
 * the election.
 *
 * <p>Ordering rules (each checked by {@code JobManagerRunnerTest}):
 * <ul>
 *   <li><b>One chain for grant and revoke.</b> A grant that arrives while the job master of an
 *       earlier session is still suspending waits: recovery (and so a new job master) starts only
 *       once the old job master's tasks have all ended. Never two task sets of one job.</li>
 *   <li><b>The end wins.</b> Once the job is ending (cancelled, failed, finished) no recovery attempt,
 *       retry or job master starts any more, whatever was queued before.</li>
 *   <li><b>The result is durable before anything is cleaned up.</b> The result is written to the
 *       {@code JobResultStore} (fenced) and the job graph removed, retried with backoff until they
 *       succeed (status shows the attempts); only then are checkpoints cleaned up as
 *       {@link io.sluice.checkpoint.CheckpointRetention} says (FINISHED deletes; FAILED keeps; CANCELED
 *       keeps unless {@code checkpoints.retain-on-cancel} is false) and {@link #resultFuture()}
 *       completes.</li>
 *   <li><b>Unreadable checkpoints suspend, not fail.</b> When every retained checkpoint is unreadable
 *       and starting empty is not allowed, the job stays {@code INITIALIZING} with its graph and
 *       checkpoints kept, says so in status, and retries on a slow backoff, so it resumes by itself
 *       once the files are repaired.</li>
 * </ul>
 *
 * <p>Threading: everything here runs on the owner's main thread (the Dispatcher's), given as
 * {@code mainThread}; election callbacks are handed over to it. Blocking work runs on the I/O
 * executor, and each completion re-checks that its session is still the current one.
 */
public final class JobManagerRunner implements LeaderContender {
    private static final Logger LOG = LoggerFactory.getLogger(JobManagerRunner.class);
    private static final long DETAILS_MAX_AGE_NANOS = 100_000_000L;

    private final JobGraph jobGraph;
    private final JobManagerServices services;
    private final MainThreadExecutor mainThread;
    private final CompletableFuture<JobResult> resultFuture = new CompletableFuture<>();
    private final List<JobStatusTransition> transitions = new ArrayList<>();

    private LeaderElection election;
    /** The current leader session, or null while not leading. */
    private UUID session;
    private RecoveryProgress progress;
    private Future<?> recoveryInFlight;
    private MainThreadExecutor.ScheduledTask retry;
    private int attempt;
    private JobMaster jobMaster;
    private MainThreadExecutor jobMasterThread;
    /** Whether {@link #jobMaster} was told to suspend (its session ended); it still runs until its tasks ended. */
    private boolean jobMasterSuspending;
    private volatile JobStatus status = JobStatus.INITIALIZING;
    private String failureMessage;
    private JobDetails finalDetails;
    private boolean closed;
    /** The result of a job that is ending here (set once, before it is durable); null while it runs. */
    private JobResult ending;
    /** The checkpoint store to clean up once the result is durable, or null. */
    private CompletedCheckpointStore endingStore;
    /** Progress of writing the result and removing the graph (shown in status until done). */
    private RecoveryProgress endingProgress;
    private int endingAttempt;
    private boolean endingWriteInFlight;
    private MainThreadExecutor.ScheduledTask endingRetry;
    /**
     * The running job's last details, served for a burst of status queries without a hop to the job
     * master's thread; used only while younger than {@link #DETAILS_MAX_AGE_NANOS} and while its
     * status is still the job's latest (a status change pushed by the job master invalidates it).
     */
    private JobDetails cachedDetails;
    private JobMaster cachedFrom;
    private long cachedAtNanos;
    private CompletableFuture<Void> closeFuture;
    /** How the current job master's recovery went (shown with the running job's details). */
    private RecoveryStatus lastRecovery;
    /**
     * Rounds of recovery that found no readable retained checkpoint: the same failure again and again
     * is a restore that can never succeed by itself (shown while no job master runs).
     */
    private final io.sluice.restart.CrashLoopDetector recoveryLoops;
    /** {@link #recoveryLoops}' crash loop, published for the metrics' scrape thread; null when none. */
    private volatile io.sluice.restart.CrashLoop recoveryLoop;
    /** This job's meters; removed when the job ends here or this runner is closed. */
    private final io.sluice.metrics.job.JobMetrics metrics;

    public JobManagerRunner(JobGraph jobGraph, JobManagerServices services, MainThreadExecutor mainThread) {
        this.jobGraph = jobGraph;
        this.services = services;
        this.mainThread = mainThread;
        this.progress = new RecoveryProgress(services.clock());
        transitions.add(new JobStatusTransition(JobStatus.INITIALIZING, services.clock().currentTimeMillis()));
        this.metrics = new io.sluice.metrics.job.JobMetrics(services.checkpointStorages().meterRegistry(),
                jobGraph.jobId(), jobGraph.name(), JobStatus.INITIALIZING, services.clock());
        resultFuture.whenComplete((result, error) -> metrics.close());
        this.recoveryLoops = new io.sluice.restart.CrashLoopDetector(services.clock(), jobGraph.jobId().value());
        metrics.healthFrom(this::recoveryHealth, null);
    }

    /** While no job master runs: the crash loop of recovery rounds, if any. Any thread. */
    private JobHealth recoveryHealth() {
        io.sluice.restart.CrashLoop loop = recoveryLoop;
        return loop == null || status != JobStatus.INITIALIZING ? JobHealth.NONE : new JobHealth(loop, -1, 0);
    }

    public JobId jobId() {
        return jobGraph.jobId();
    }

    public JobGraph jobGraph() {
        return jobGraph;
    }

    /** The latest known status; may be read from any thread. */
    public JobStatus status() {
        return status;
    }

    /** Wall-clock time of the first transition (when this runner was created). Main thread. */
    public long startTimeMillis() {
        mainThread.assertRunningInMainThread();
        return transitions.get(0).timestampMillis();
    }

    /**
     * A crash loop or stale checkpoints of the running job, for the job list: from its job master's
     * memory, without a hop to its thread; {@link JobHealth#NONE} without a current job master. Main thread.
     */
    public JobHealth health() {
        mainThread.assertRunningInMainThread();
        JobMaster jm = jobMaster;
        if (jm == null) {
            return ending != null ? JobHealth.NONE : recoveryHealth();
        }
        return jobMasterSuspending || ending != null ? JobHealth.NONE : jm.health();
    }

    /** Wall-clock time of the latest status change seen by this runner. Main thread. */
    public long lastTransitionMillis() {
        mainThread.assertRunningInMainThread();
        return transitions.get(transitions.size() - 1).timestampMillis();
    }

    /**
     * Completes on the main thread when the job is globally terminal (FINISHED, FAILED, CANCELED)
     * and its result is durable in the job result store.
     */
    public CompletableFuture<JobResult> resultFuture() {
        return resultFuture;
    }

    /** Joins the leader election. Main thread. */
    public void start() {
        mainThread.assertRunningInMainThread();
        election = services.ha().jobLeaderElection(jobGraph.jobId(), services.contenderId());
        election.startLeaderElection(this);
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
        return "job manager runner of job " + jobGraph.jobId() + " on " + services.contenderId();
    }

    private void onGrant(UUID s) {
        mainThread.assertRunningInMainThread();
        if (closed || resultFuture.isDone()) {
            return;
        }
        if (session != null && !session.equals(s)) {
            onRevoke(); // a grant without the revoke in between: end the old session first
        }
        session = s;
        if (ending != null) {
            LOG.info("{} gained leadership (session {}) while its result is being recorded", description(), s);
            recordResultSoon(Duration.ZERO);
            return;
        }
        LOG.info("{} gained leadership (session {}); recovering", description(), s);
        attempt = 0;
        progress = new RecoveryProgress(services.clock());
        metrics.recoveryStarted();
        if (jobMaster != null) {
            // The job master of an earlier session is still suspending: its tasks must end first.
            progress.phase("waiting for the job master of the previous leadership to stop its tasks");
            setStatus(JobStatus.INITIALIZING);
            LOG.info("{}: waiting for the previous job master to stop its tasks before recovering", description());
            return;
        }
        startRecoveryAttempt(s);
    }

    private void onRevoke() {
        mainThread.assertRunningInMainThread();
        if (session == null) {
            return;
        }
        LOG.info("{} lost leadership (session {})", description(), session);
        session = null;
        cancelRecovery();
        metrics.recoveryAbandoned();
        progress = new RecoveryProgress(services.clock());
        if (jobMaster != null) {
            JobMaster jm = jobMaster;
            jobMasterSuspending = true;
            jobMasterThread.execute(() -> jm.suspend("leadership was revoked"));
        } else if (ending == null) {
            setStatus(JobStatus.INITIALIZING);
        }
    }

    private void cancelRecovery() {
        if (recoveryInFlight != null) {
            recoveryInFlight.cancel(true);
            recoveryInFlight = null;
        }
        if (retry != null) {
            retry.cancel();
            retry = null;
        }
    }

    /** Whether a recovery step of session {@code s} may still act: s leads, and the job neither ends nor closes. */
    private boolean mayRecover(UUID s) {
        return s.equals(session) && !closed && ending == null && jobMaster == null;
    }

    /** What one successful recovery attempt produced. */
    private record Recovered(JobResult alreadyFinished, CompletedCheckpointStore store, CheckpointIdCounter counter,
                             CheckpointStorage storage) {
    }

    private void startRecoveryAttempt(UUID s) {
        if (!mayRecover(s)) {
            return;
        }
        attempt++;
        metrics.recoveryAttempt();
        RecoveryProgress p = progress;
        p.startAttempt(attempt);
        CompletableFuture<Recovered> result = new CompletableFuture<>();
        recoveryInFlight = services.ioExecutor().submit(() -> {
            try {
                result.complete(recover(s, p));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        result.whenCompleteAsync((recovered, error) -> onRecoveryAttemptDone(s, p, recovered, error), mainThread);
    }

    /** One recovery attempt, on an I/O thread. */
    private Recovered recover(UUID s, RecoveryProgress p) throws Exception {
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
                jobGraph.config().retainedCheckpoints(), storage, election, s,
                jobGraph.config().startWithoutCheckpointAllowed(), p);
        checkInterrupted();
        // Above every retained checkpoint, not only the latest usable one: a newer retained one may be unusable
        // or in doubt, and its id must never be handed out again (next id = max(counter, latest retained + 1)).
        long nextId = Math.max(store.latest().map(CompletedCheckpoint::checkpointId).orElse(0L),
                store.retainedIds().isEmpty() ? 0L : store.retainedIds().get(store.retainedIds().size() - 1)) + 1;
        if (store.latest().isEmpty() && store.retainedIds().isEmpty() && jobGraph.config().hasRestoreFrom()) {
            String spec = jobGraph.config().restoreFrom();
            p.phase("reading the checkpoint to start from (" + spec + ")");
            CompletedCheckpoint from = new RestoreCheckpointResolver(storage, services.checkpointStorages(), factory)
                    .resolve(spec);
            checkInterrupted();
            p.metadataLoaded(from.checkpointId());
            p.event("Starting from checkpoint " + from.checkpointId() + " of job " + from.jobId() + " ("
                    + (CheckpointStorage.isLocation(from.metadataPath()) ? from.metadataPath()
                            : storage.location() + "/" + from.metadataPath())
                    + ", from checkpoints.restore-from " + spec + ")");
            store = new RestoredCheckpointStore(store, from);
            nextId = Math.max(nextId, from.checkpointId() + 1);
        }
        p.phase("creating the checkpoint id counter");
        CheckpointIdCounter counter = factory.createCheckpointIdCounter(id, nextId);
        p.phase("starting the job master");
        return new Recovered(null, store, counter, storage);
    }

    private static void checkInterrupted() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("recovery cancelled");
        }
    }

    private void onRecoveryAttemptDone(UUID s, RecoveryProgress p, Recovered recovered, Throwable error) {
        if (!mayRecover(s)) {
            return; // revoked, ending or closed meanwhile: nothing of this session may act
        }
        recoveryInFlight = null;
        if (error != null) {
            Throwable cause = unwrap(error);
            if (cause instanceof InterruptedException || cause instanceof CancellationException) {
                return;
            }
            if (cause instanceof CheckpointRecoveryException) {
                // Every retained checkpoint is unreadable: keep the job (graph and checkpoints) and wait.
                Duration delay = services.unusableCheckpointsBackoff().delayAfter(attempt, services.random());
                String message = cause.getMessage();
                recoveryLoops.record(new io.sluice.restart.CrashLoopDetector.Failure(cause.getClass().getName(), message,
                        null, -1, false, true));
                recoveryLoop = recoveryLoops.current();
                p.failedAttempt(message, delay.toNanos(), "waiting: no retained checkpoint is readable; retrying in "
                        + formatDelay(delay) + " (repair the checkpoint files and the job resumes by itself, or cancel"
                        + " it and start it again with checkpoints.restore-from=<an intact chk-<n> directory>)");
                LOG.error("{}: recovery attempt {}: {} The job keeps its graph and checkpoints and waits; next attempt"
                        + " in {}", description(), attempt, message, formatDelay(delay));
                scheduleRetry(s, delay);
                return;
            }
            if (isPermanent(cause)) {
                LOG.error("{}: recovery failed permanently", description(), cause);
                failureMessage = JobResult.describe(cause);
                completeWithoutJobMaster(JobStatus.FAILED, cause);
                return;
            }
            Duration delay = services.recoveryBackoff().delayAfter(attempt, services.random());
            String message = describeStorageError(cause);
            p.failedAttempt(message, delay.toNanos());
            LOG.warn("{}: recovery attempt {} failed: {}; next attempt in {} ms", description(), attempt, message,
                    delay.toMillis());
            scheduleRetry(s, delay);
            return;
        }
        if (recovered.alreadyFinished() != null) {
            LOG.info("{}: the job already ended ({}); it is not run again", description(), recovered.alreadyFinished().status());
            ending = recovered.alreadyFinished();
            setStatus(recovered.alreadyFinished().status());
            finalDetails = initializingDetails(recovered.alreadyFinished().status());
            resultFuture.complete(recovered.alreadyFinished());
            return;
        }
        startJobMaster(s, recovered);
    }

    private void scheduleRetry(UUID s, Duration delay) {
        retry = mainThread.schedule(() -> {
            retry = null;
            startRecoveryAttempt(s); // re-checks session, ending and closed
        }, delay);
    }

    private static String formatDelay(Duration d) {
        return d.toMillis() >= 1000 ? String.format(java.util.Locale.ROOT, "%.1f s", d.toMillis() / 1000.0)
                : d.toMillis() + " ms";
    }

    /**
     * The error as a user should see it in status: the outermost message (which names the storage
     * location, the operation and the object), plus the root cause when that message lacks it.
     */
    static String describeStorageError(Throwable cause) {
        String outer = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getName();
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root != cause && root.getMessage() != null && !outer.contains(root.getMessage())) {
            return outer + " (caused by " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
        }
        return outer;
    }

    private static boolean isPermanent(Throwable cause) {
        return cause instanceof IllegalArgumentException // includes RestoreCheckpointException
                || cause instanceof io.sluice.api.errors.InvalidJobException;
    }

    private void startJobMaster(UUID s, Recovered recovered) {
        if (!mayRecover(s)) {
            return;
        }
        lastRecovery = progress.snapshot();
        metrics.recoveryFinished();
        List<TaskExecutorGateway> slots = List.of();
        SlotPool pool = services.slotPool();
        if (!pool.isDynamic()) {
            try {
                slots = pool.allocate(jobGraph.jobId(), jobGraph.requiredSlots());
            } catch (SlotPool.NotEnoughSlotsException e) {
                failureMessage = e.getMessage();
                completeWithoutJobMaster(JobStatus.FAILED, e);
                return;
            }
        }
        // A dynamic pool (task executors come and go): the job master takes its slots itself, and waits for them.
        JobMasterServices jmServices = new JobMasterServices(recovered.storage(), recovered.store(), recovered.counter(),
                services.shuffleMaster(), slots, services.ioExecutor(), services.clock(),
                RestartStrategies.create(jobGraph.config().restartStrategy(), services.clock(), services.random()),
                () -> election.hasLeadership(s), pool.isDynamic() ? pool : null);
        MainThreadExecutor jmThread = services.jobMasterThreads().apply("jobmaster-" + jobGraph.jobId().value().substring(0, 8));
        AtomicReference<JobMaster> self = new AtomicReference<>();
        JobMaster jm = new JobMaster(jobGraph, jmServices, jmThread,
                st -> mainThread.execute(() -> {
                    // Only the current job master speaks for the job; a suspended one's late news is ignored.
                    if (jobMaster != null && jobMaster == self.get() && st != JobStatus.SUSPENDED && ending == null) {
                        setStatus(st);
                    }
                }));
        jm.fenceRemoteCallsWith(s); // task executors' calls to it over RPC carry session s, refused once s ends
        self.set(jm);
        jobMaster = jm;
        jobMasterThread = jmThread;
        jobMasterSuspending = false;
        setStatus(JobStatus.CREATED);
        jmThread.execute(() -> {
            jm.checkpointCoordinator().setMetricsListener(metrics);
            metrics.healthFrom(jm::health, jm::checkpointAgeMillis);
            jm.start();
        });
        jm.resultFuture().whenCompleteAsync((result, error) -> onJobMasterDone(jm, jmThread, recovered, result), mainThread);
    }

    private void onJobMasterDone(JobMaster jm, MainThreadExecutor jmThread, Recovered recovered, JobResult result) {
        if (jobMaster == jm) {
            metrics.healthFrom(this::recoveryHealth, null);
            jobMaster = null;
            jobMasterThread = null;
            jobMasterSuspending = false;
        }
        if (jobMaster == null) {
            services.slotPool().release(jobGraph.jobId()); // not while a newer job master uses them
        }
        if (jmThread instanceof DedicatedMainThreadExecutor dedicated) {
            dedicated.retire(); // late messages (task reports, status requests) still get answered
        }
        if (closeFuture != null && jobMaster == null) {
            closeFuture.complete(null);
        }
        if (result.status() == JobStatus.SUSPENDED) {
            // Nothing to clean: the next leader recovers from the same pointers.
            if (ending != null) {
                return; // cancelled after the revoke: the result is being recorded
            }
            if (session == null) {
                setStatus(JobStatus.INITIALIZING);
            } else if (!closed) {
                // Re-granted while this job master suspended: its tasks have ended, recover now.
                setStatus(JobStatus.INITIALIZING);
                startRecoveryAttempt(session);
            }
            return;
        }
        if (ending != null) {
            return; // already ending (cancelled while this job master's session was over)
        }
        failureMessage = result.failureMessage();
        JobDetails last = jm.finalDetails();
        if (last != null) {
            List<JobStatusTransition> all = new ArrayList<>(transitions.subList(0, 1));
            all.addAll(last.transitions());
            finalDetails = new JobDetails(last.jobId(), last.name(), last.status(), all, last.vertices(),
                    last.checkpoints(), last.restarts(), last.failureMessage(), lastRecovery, last.restartHistory(),
                    last.recentFailures(), last.health());
        }
        finishGlobally(result, recovered.store(), finalDetails);
    }

    /** Ends the job without a job master (cancelled or failed while recovering). */
    private void completeWithoutJobMaster(JobStatus terminal, Throwable failure) {
        cancelRecovery();
        JobResult result = JobResult.of(jobGraph.jobId(), jobGraph.name(), terminal,
                services.clock().currentTimeMillis(), failure);
        finishGlobally(result, null, null);
    }

    /**
     * The job ends with {@code result}: from now on nothing starts any more. Records the result
     * (fenced on the current session) and removes the job graph, retrying with backoff until both
     * are durable; then cleans up the checkpoints as {@link CheckpointRetention} says, and completes
     * the result future. {@code details}: the job master's last details, or null.
     */
    private void finishGlobally(JobResult result, CompletedCheckpointStore store, JobDetails details) {
        // The result names where the checkpoints are and whether they go, so that any later leader can finish the job.
        ending = result.withCheckpoints(jobGraph.config().checkpointDir(), discardsCheckpoints(result.status()));
        endingStore = store;
        endingProgress = new RecoveryProgress(services.clock());
        endingProgress.phase("recording the job result");
        cancelRecovery();
        setStatus(result.status());
        finalDetails = details != null ? details : initializingDetails(result.status());
        recordResultSoon(Duration.ZERO);
    }

    private void recordResultSoon(Duration delay) {
        if (endingRetry != null || endingWriteInFlight || resultFuture.isDone()) {
            return;
        }
        if (delay.isZero()) {
            recordResult();
        } else {
            endingRetry = mainThread.schedule(() -> {
                endingRetry = null;
                recordResult();
            }, delay);
        }
    }

    private void recordResult() {
        if (closed || resultFuture.isDone() || endingWriteInFlight) {
            return;
        }
        UUID s = session;
        JobResult result = ending;
        if (s == null) {
            endingProgress.phase("waiting for leadership to record the job result (" + result.status() + ")");
            LOG.info("{}: not leading; the result {} is recorded once leadership is back", description(), result.status());
            return; // onGrant resumes
        }
        endingAttempt++;
        endingProgress.startAttempt(endingAttempt);
        endingProgress.phase("recording the job result (" + result.status() + ") and removing the job graph");
        endingWriteInFlight = true;
        CompletableFuture.runAsync(() -> {
            try {
                election.runIfLeader(s, () -> services.ha().jobResultStore().putResult(result));
                // Only once the result is durable: without the graph nothing could run the job again anyway. The jar
                // before the graph: a graph left beside a result is found (and removed) by the next leader, a jar is not.
                election.runIfLeader(s, () -> services.ha().jobJarStore().removeJobJar(jobGraph.jobId()));
                election.runIfLeader(s, () -> services.ha().jobGraphStore().removeJobGraph(jobGraph.jobId()));
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, services.ioExecutor()).whenCompleteAsync((ok, error) -> {
            endingWriteInFlight = false;
            if (closed) {
                return;
            }
            if (error == null) {
                cleanUpCheckpoints(result);
                return;
            }
            Throwable cause = unwrap(error);
            Duration delay = services.recoveryBackoff().delayAfter(endingAttempt, services.random());
            String message = describeStorageError(cause);
            endingProgress.failedAttempt(message, delay.toNanos(), "could not record the job result (" + result.status()
                    + "); the job graph is kept until it is recorded; retrying in " + formatDelay(delay));
            LOG.warn("{}: could not record the result {} (attempt {}): {}; the job graph is kept, retrying in {}",
                    description(), result.status(), endingAttempt, message, formatDelay(delay));
            recordResultSoon(delay.isZero() ? Duration.ofMillis(1) : delay);
        }, mainThread);
    }

    /**
     * The result is durable: delete checkpoints if the retention rule says so, then complete. A
     * deletion that storage refuses does not hold the job up (the pointers are gone, so the files
     * only take space): it is retried with backoff in the background until storage answers, also
     * after this runner closed, for as long as the job manager's main thread runs.
     */
    private void cleanUpCheckpoints(JobResult result) {
        CompletedCheckpointStore store = endingStore;
        boolean discard = result.deleteCheckpoints();
        endingProgress.phase(discard ? "deleting the job's checkpoints" : "keeping the job's checkpoints");
        shutDownStore(store, result, discard, 1).whenCompleteAsync((deleted, error) ->
                resultFuture.complete(Boolean.TRUE.equals(deleted) ? result.withCheckpointsDeleted() : result), mainThread);
    }

    /** Whether the job's checkpoints are deleted when it ends with {@code status} ({@link CheckpointRetention}). */
    private boolean discardsCheckpoints(JobStatus status) {
        return CheckpointRetention.discards(status, jobGraph.config().discardCheckpointsOnCancel());
    }

    /**
     * Shuts the store down on the I/O executor; on an incomplete cleanup schedules the next attempt. With
     * {@code discard}, also deletes what the HA services keep for the job's checkpoints (pointers, id counter)
     * and, when there is no store (the job ended before its job master started, e.g. cancelled while
     * INITIALIZING), every file under the job's checkpoint directory; then records in the result that nothing
     * is left. Completes with whether everything was deleted.
     */
    private CompletableFuture<Boolean> shutDownStore(CompletedCheckpointStore store, JobResult result, boolean discard,
                                                     int attempt) {
        JobStatus status = result.status();
        UUID s = session;
        return CompletableFuture.supplyAsync(() -> {
            try {
                if (store != null) {
                    store.shutdown(status, discard);
                }
                if (!discard) {
                    return false;
                }
                if (s == null) {
                    return false; // not leading: the next leader's Dispatcher finishes the deletion (the result says so)
                }
                election.runIfLeader(s, () -> services.ha().checkpointRecoveryFactory()
                        .removeCheckpointsOfEndedJob(jobGraph.jobId()));
                if (store == null) {
                    CheckpointStorage storage = services.checkpointStorages().forLocation(jobGraph.config().checkpointDir());
                    try {
                        storage.discardJob(jobGraph.jobId());
                    } catch (RuntimeException e) {
                        throw new io.sluice.checkpoint.IncompleteCheckpointCleanupException(jobGraph.jobId(), status,
                                storage.location(), List.of(), e);
                    }
                }
                election.runIfLeader(s, () -> services.ha().jobResultStore().putResult(result.withCheckpointsDeleted()));
                return true;
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, services.ioExecutor()).handleAsync((deleted, error) -> {
            if (error == null) {
                if (attempt > 1) {
                    LOG.info("{}: the checkpoints of the {} job are deleted (attempt {})", description(), status, attempt);
                }
                return deleted;
            }
            Throwable cause = unwrap(error);
            if (cause instanceof io.sluice.checkpoint.IncompleteCheckpointCleanupException) {
                Duration delay = services.recoveryBackoff().delayAfter(attempt, services.random());
                LOG.warn("{}: {} (attempt {}, next in {})", description(), cause.getMessage(), attempt,
                        formatDelay(delay));
                mainThread.schedule(() -> shutDownStore(store, result, discard, attempt + 1), delay);
            } else {
                LOG.warn("{}: the result {} is recorded, but the checkpoints could not be cleaned up: {}; the leading"
                        + " job manager finishes the clean-up when it next starts", description(), status, cause.toString());
            }
            return false;
        }, mainThread);
    }

    /** Cancels the job: forwarded to the job master, or ends recovery at once. Main thread. */
    public CompletableFuture<Acknowledge> cancel() {
        mainThread.assertRunningInMainThread();
        if (resultFuture.isDone() || ending != null) {
            return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
        }
        if (session == null) {
            // Also while a job master of a lost session is still suspending: cancelling it would not stop the job.
            return CompletableFuture.failedFuture(new IllegalStateException("Job " + jobGraph.jobId()
                    + " is not led by this job manager (" + services.contenderId() + ") right now; cancel it on its leader"));
        }
        if (jobMaster != null && !jobMasterIsOfAnEndedSession()) {
            return jobMaster.cancel();
        }
        LOG.info("{}: cancelled while {}", description(), progress.snapshot().phase());
        completeWithoutJobMaster(JobStatus.CANCELED, null);
        return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
    }

    /** Whether the job master is one of an earlier session, still suspending while a new grant waits. */
    private boolean jobMasterIsOfAnEndedSession() {
        return jobMaster != null && jobMasterSuspending;
    }

    /** Answers at once while recovering; forwards to the job master once it runs. Main thread. */
    public CompletableFuture<JobDetails> requestJobDetails() {
        mainThread.assertRunningInMainThread();
        if (finalDetails != null && ending != null && !resultFuture.isDone()) {
            JobDetails d = finalDetails;
            return CompletableFuture.completedFuture(new JobDetails(d.jobId(), d.name(), d.status(), d.transitions(),
                    d.vertices(), d.checkpoints(), d.restarts(), d.failureMessage(), endingProgress.snapshot(),
                    d.restartHistory(), d.recentFailures(), d.health()));
        }
        if (finalDetails != null) {
            return CompletableFuture.completedFuture(finalDetails);
        }
        if (jobMaster != null && jobMasterSuspending && session != null) {
            return CompletableFuture.completedFuture(initializingDetails(status)); // re-granted, old tasks still ending
        }
        if (jobMaster != null) {
            JobMaster jm = jobMaster;
            if (cachedDetails != null && cachedFrom == jm && cachedDetails.status() == status
                    && services.clock().nanoTime() - cachedAtNanos < DETAILS_MAX_AGE_NANOS) {
                return CompletableFuture.completedFuture(cachedDetails);
            }
            List<JobStatusTransition> before = List.copyOf(transitions.subList(0, 1));
            return jm.requestJobDetails().thenApplyAsync(d -> {
                List<JobStatusTransition> all = new ArrayList<>(before);
                all.addAll(d.transitions());
                // A job master waiting for slots says so as its recovery phase; otherwise show how recovery went.
                JobDetails details = new JobDetails(d.jobId(), d.name(), d.status(), all, d.vertices(), d.checkpoints(),
                        d.restarts(), d.failureMessage(), d.recovery() != null ? d.recovery() : lastRecovery,
                        d.restartHistory(), d.recentFailures(), d.health());
                if (jobMaster == jm) {
                    cachedDetails = details;
                    cachedFrom = jm;
                    cachedAtNanos = services.clock().nanoTime();
                }
                return details;
            }, mainThread);
        }
        return CompletableFuture.completedFuture(initializingDetails(status));
    }

    private JobDetails initializingDetails(JobStatus st) {
        return new JobDetails(jobGraph.jobId(), jobGraph.name(), st, transitions, List.of(), CheckpointStats.NONE, 0,
                failureMessage, st == JobStatus.INITIALIZING ? progress.snapshot() : null)
                .withHealth(st == JobStatus.INITIALIZING ? recoveryHealth() : JobHealth.NONE);
    }

    private void setStatus(JobStatus next) {
        if (status != next) {
            status = next;
            transitions.add(new JobStatusTransition(next, services.clock().currentTimeMillis()));
            metrics.statusChanged(next);
        }
    }

    /**
     * Job manager shutdown: suspends the job master and, once its tasks have ended, leaves the
     * election, so a standby never runs the job while this one's tasks still do. Main thread;
     * the returned future completes on it.
     */
    public CompletableFuture<Void> close() {
        mainThread.assertRunningInMainThread();
        if (closeFuture != null) {
            return closeFuture;
        }
        closed = true;
        closeFuture = new CompletableFuture<>();
        cancelRecovery();
        if (endingRetry != null) {
            endingRetry.cancel();
            endingRetry = null;
        }
        if (jobMaster != null) {
            JobMaster jm = jobMaster;
            jobMasterSuspending = true;
            jobMasterThread.execute(() -> jm.suspend("the job manager is shutting down"));
        } else {
            closeFuture.complete(null);
        }
        return closeFuture.whenComplete((ignored, error) -> {
            metrics.close();
            if (election != null) {
                election.close();
            }
        });
    }

    private static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while (c instanceof CompletionException && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }
}
