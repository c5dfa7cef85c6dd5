package io.sluice.jobmaster;

import io.sluice.api.errors.UnrecoverableJobException;
import io.sluice.checkpoint.coordinator.CheckpointCoordinator;
import io.sluice.checkpoint.CheckpointException;
import io.sluice.checkpoint.StateRestoreException;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.FailureEvent;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.protocol.RecoveryStatus;
import io.sluice.protocol.SubtaskStatus;
import io.sluice.protocol.VertexStatus;
import io.sluice.slots.SlotPool;
import io.sluice.slots.TaskExecutorLostException;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.graph.JobVertex;
import io.sluice.rpc.Acknowledge;
import io.sluice.restart.RestartTracker;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.rpc.remote.FencedGateway;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyGroups;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.protocol.TaskMetrics;
import io.sluice.protocol.TaskRestore;
import java.util.UUID;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one job for as long as this job manager leads it: deploys its tasks, restarts them after
 * failures, and drives checkpoints.
 *
 * <p>Threading: all state lives on {@code mainThread}; gateway methods hop there. Nothing here
 * blocks: checkpoint I/O goes through the {@link CheckpointCoordinator} to the I/O executor.
 *
 * <p>Failover is global: when a task fails, every task is cancelled, and once all have ended the
 * job is redeployed after the restart strategy's backoff, restoring from the latest completed
 * checkpoint held in memory by the {@code CompletedCheckpointStore} (no storage read of metadata;
 * tasks read only their own state files). Each deployment round has a JVM-unique number, so
 * reports from an earlier round are ignored.
 *
 * <p>A task has restored its state once it reports {@code RUNNING} (a task restores before it
 * runs). Until every task of a deployment has restored or ended, the checkpoint it restores from
 * stays pinned in the {@link CheckpointCoordinator}, so that a checkpoint completing meanwhile does
 * not discard the files the new tasks are reading.
 *
 * <p>A task that finds the state of its restore checkpoint unusable (a corrupt state file,
 * {@link StateRestoreException}) makes the job restart from the previous retained checkpoint
 * ({@link RestoreFallback}), outside the restart strategy's budget. When no retained checkpoint
 * has usable state, the job stays RESTARTING (never ended, so its graph and checkpoints stay) and
 * retries on a slow backoff until the files are repaired or it is cancelled.
 *
 * <p>Crash loops: the first task failure of each round goes to a {@link JobHealthMonitor}, which
 * finds the same failure on consecutive attempts and publishes it, with the age of the latest
 * checkpoint, as the job's {@link io.sluice.protocol.JobHealth} ({@link #health()}, any thread). A
 * restore that fails the same deterministic way on every attempt is retried only every
 * {@link io.sluice.restart.CrashLoopDetector#SLOW_RETRY}, never by discarding a checkpoint.
 *
 * <p>With a dynamic {@link SlotPool} (cluster mode, {@link JobMasterServices#slotPool()}) the job
 * master takes its slots from the pool before every deployment. While there are too few it waits
 * (CREATED or RESTARTING) without consuming the restart budget, its details say for what
 * ("waiting for 4 slots; 2 free on 1 task manager", as {@code recovery().phase()}), and it tries
 * again whenever slots are added. A task executor that leaves the pool with tasks of the current
 * deployment fails the job over with a {@link TaskExecutorLostException} ("task manager tm-1 lost:
 * no heartbeat for 6 s"); its tasks count as failed at once, since no report will come from them.
 * A task cancelled by its task executor without the job master asking (it lost its job manager)
 * is a task failure too.
 */
public final class JobMaster implements JobMasterGateway, FencedGateway {
    private static final Logger LOG = LoggerFactory.getLogger(JobMaster.class);
    private static final AtomicInteger DEPLOYMENTS = new AtomicInteger();
    /** How long a status request waits for task counters before answering without them. */
    private static final long METRICS_TIMEOUT_MILLIS = 2_000;
    /**
     * Task counters younger than this are served from memory: a burst of status queries then costs
     * one hop to this thread each, and only one request to the task executors per interval.
     */
    private static final long METRICS_MAX_AGE_NANOS = 100_000_000L;

    private final JobGraph jobGraph;
    private final JobMasterServices services;
    private final MainThreadExecutor mainThread;
    private final CheckpointCoordinator checkpointCoordinator;
    private final List<JobStatusTransition> transitions = new ArrayList<>();
    private final CompletableFuture<JobResult> resultFuture = new CompletableFuture<>();
    private final java.util.function.Consumer<JobStatus> statusListener;

    /** Current deployment round; empty before the first deployment. */
    private final Map<ExecutionAttemptId, Execution> executions = new LinkedHashMap<>();
    /** Written on the main thread only; volatile so that {@link #health()} can read it from any thread. */
    private volatile JobStatus status;
    private int deployment = -1;
    private int restarts;
    private Throwable lastFailure;
    private final RestartTracker restartTracker;
    /** Crash loops and stale checkpoints; see {@link JobHealthMonitor}. */
    private final JobHealthMonitor healthMonitor;
    /** The latest task failures, oldest first, at most {@link JobDetails#RECENT_FAILURES_LIMIT}. */
    private final java.util.ArrayDeque<FailureEvent> recentFailures = new java.util.ArrayDeque<>();
    private MainThreadExecutor.ScheduledTask scheduledRestart;
    /** The checkpoint the current deployment restores from, or -1. */
    private long restoreCheckpointId = -1;
    /** Falls back past checkpoints whose state turned out unusable; see {@link RestoreFallback}. */
    private final RestoreFallback restoreFallback;
    /** Task counters of the last details request, kept for the final details. */
    private List<TaskMetrics> lastMetrics = List.of();
    private long lastMetricsNanos;
    private volatile JobDetails finalDetails;
    /** The slots of the current (or next) deployment: subtask i runs on {@code slots.get(i)}. */
    private List<TaskExecutorGateway> slots;
    /** What the job waits for while the dynamic pool has too few slots ("waiting for 4 slots; ..."), else null. */
    private String waitingForSlots;
    /** Registered with the dynamic pool while this job master has not finished; null without one. */
    private final SlotPool.Listener poolListener;
    private boolean listeningToPool;

    /** One subtask's deployment. */
    private static final class Execution {
        final ExecutionAttemptId id;
        final TaskExecutorGateway taskExecutor;
        final boolean source;
        ExecutionState state = ExecutionState.DEPLOYING;
        /** Whether the task may still be reading its restore state: until it reports RUNNING or ends. */
        boolean restoring;

        Execution(ExecutionAttemptId id, TaskExecutorGateway taskExecutor, boolean source, boolean restoring) {
            this.id = id;
            this.taskExecutor = taskExecutor;
            this.source = source;
            this.restoring = restoring;
        }
    }

    /** The job's leader session this job master speaks for, once set; the fencing token of its RPC export. */
    private volatile UUID leaderSession;

    /**
     * Fences calls that reach this job master over RPC (it is passed by reference to task executors):
     * they must carry {@code session}, the job leader session it runs under, and are refused once
     * that session no longer leads. Set by the job manager runner before {@link #start()}; any thread.
     */
    public void fenceRemoteCallsWith(UUID session) {
        this.leaderSession = session;
    }

    /** The leader session while it still leads ({@code writesAllowed}), else {@code null}. Any thread; from memory. */
    @Override
    public UUID fencingToken() {
        UUID s = leaderSession;
        return s != null && services.writesAllowed().getAsBoolean() ? s : null;
    }

    public JobMaster(JobGraph jobGraph, JobMasterServices services, MainThreadExecutor mainThread) {
        this(jobGraph, services, mainThread, status -> { });
    }

    /**
     * @param statusListener told of every status change, on this job master's main thread; must not block
     */
    public JobMaster(JobGraph jobGraph, JobMasterServices services, MainThreadExecutor mainThread,
                     java.util.function.Consumer<JobStatus> statusListener) {
        this.statusListener = statusListener;
        this.jobGraph = jobGraph;
        this.services = services;
        this.mainThread = mainThread;
        this.slots = List.copyOf(services.slots());
        this.poolListener = services.slotPool() == null ? null : new SlotPool.Listener() {
            @Override
            public void taskExecutorLost(String taskExecutorId, Set<JobId> jobs, String reason) {
                mainThread.execute(() -> onTaskExecutorLost(taskExecutorId, reason));
            }

            @Override
            public void slotsAdded() {
                mainThread.execute(JobMaster.this::onSlotsAdded);
            }
        };
        if (services.slotPool() == null && services.slots().size() < jobGraph.requiredSlots()) {
            throw new IllegalArgumentException("Job " + jobGraph.jobId() + " needs " + jobGraph.requiredSlots()
                    + " slots, got " + services.slots().size());
        }
        this.checkpointCoordinator = new CheckpointCoordinator(jobGraph.jobId(), jobGraph.config(),
                services.checkpointStorage(), services.checkpointStore(), services.checkpointIdCounter(),
                mainThread, services.ioExecutor(), services.clock(), new CoordinatorContext(),
                services.writesAllowed());
        this.restoreFallback = new RestoreFallback(jobGraph.jobId(), services.checkpointStore(), services.ioExecutor(),
                mainThread, jobGraph.config().startWithoutCheckpointAllowed());
        this.restartTracker = new RestartTracker(services.clock());
        this.healthMonitor = new JobHealthMonitor(jobGraph.jobId(), jobGraph.config(), services.checkpointStore(),
                services.clock());
        this.status = JobStatus.CREATED;
        transitions.add(new JobStatusTransition(JobStatus.CREATED, services.clock().currentTimeMillis()));
    }

    public JobId jobId() {
        return jobGraph.jobId();
    }

    /** Deploys all tasks, restoring from the latest completed checkpoint if there is one. Main thread. */
    public void start() {
        mainThread.assertRunningInMainThread();
        if (status != JobStatus.CREATED) {
            return;
        }
        if (poolListener != null && !listeningToPool) {
            listeningToPool = true;
            services.slotPool().addListener(poolListener);
        }
        if (!acquireSlots()) {
            return; // waits in CREATED; onSlotsAdded starts it
        }
        deployAll();
        transitionTo(JobStatus.RUNNING, EnumSet.of(JobStatus.CREATED));
        checkpointCoordinator.start();
    }

    /**
     * Completes once the job is terminal under this job master and all its tasks have ended:
     * FINISHED, FAILED, CANCELED, or SUSPENDED (leadership lost; the status changes at once, the
     * future completes when the cancelled tasks are gone). Completes on the main thread.
     */
    public CompletableFuture<JobResult> resultFuture() {
        return resultFuture;
    }

    /**
     * Leadership was lost: stop checkpointing, cancel the tasks, switch to SUSPENDED at once (no
     * further checkpoint is started or completed); {@link #resultFuture()} completes once the tasks ended.
     */
    public void suspend(String reason) {
        mainThread.assertRunningInMainThread();
        if (status.isTerminal()) {
            return;
        }
        LOG.info("Suspending job {} ({}): {}", jobGraph.jobId(), jobGraph.name(), reason);
        checkpointCoordinator.stop("the job is suspended");
        cancelScheduledRestart();
        cancelAllExecutions();
        transitionTo(JobStatus.SUSPENDED, null);
        checkAllEnded();
    }

    // ---------------------------------------------------------------- gateway

    @Override
    public CompletableFuture<Acknowledge> updateTaskExecutionState(TaskExecutionState state) {
        return CompletableFuture.supplyAsync(() -> {
            onTaskStateChange(state);
            return Acknowledge.INSTANCE;
        }, mainThread);
    }

    @Override
    public void acknowledgeCheckpoint(ExecutionAttemptId task, long checkpointId, TaskStateHandle state) {
        mainThread.execute(() -> {
            if (executions.containsKey(task)) {
                checkpointCoordinator.acknowledgeCheckpoint(task, checkpointId, state);
            }
        });
    }

    @Override
    public void declineCheckpoint(ExecutionAttemptId task, long checkpointId, Throwable reason) {
        mainThread.execute(() -> {
            if (executions.containsKey(task)) {
                checkpointCoordinator.declineCheckpoint(task, checkpointId, reason);
            }
        });
    }

    @Override
    public CompletableFuture<JobDetails> requestJobDetails() {
        return CompletableFuture.supplyAsync(() -> {
            if (finalDetails != null) {
                return CompletableFuture.completedFuture(finalDetails);
            }
            long ageNanos = services.clock().nanoTime() - lastMetricsNanos;
            if (lastMetricsNanos != 0 && ageNanos < METRICS_MAX_AGE_NANOS) {
                // Recent counters: answer from this thread alone, without asking the task executors.
                return CompletableFuture.completedFuture(buildDetails(lastMetrics));
            }
            List<CompletableFuture<List<TaskMetrics>>> perExecutor = new ArrayList<>();
            for (TaskExecutorGateway te : distinctTaskExecutors()) {
                // Bounded: a task executor that does not answer must not hold up the job's status.
                perExecutor.add(te.requestTaskMetrics(jobGraph.jobId())
                        .completeOnTimeout(List.of(), METRICS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                        .exceptionally(e -> List.of()));
            }
            return CompletableFuture.allOf(perExecutor.toArray(new CompletableFuture<?>[0]))
                    .thenApplyAsync(ignored -> {
                        List<TaskMetrics> metrics = perExecutor.stream().flatMap(f -> f.join().stream()).toList();
                        if (!status.isTerminal()) {
                            lastMetrics = metrics;
                            lastMetricsNanos = services.clock().nanoTime();
                        }
                        return finalDetails != null ? finalDetails : buildDetails(metrics);
                    }, mainThread);
        }, mainThread).thenCompose(f -> f);
    }

    @Override
    public CompletableFuture<Acknowledge> cancel() {
        return CompletableFuture.supplyAsync(() -> {
            cancelJob();
            return Acknowledge.INSTANCE;
        }, mainThread);
    }

    /** The job's details without task counters; main thread only (used when the job already ended). */
    public JobDetails currentDetails() {
        mainThread.assertRunningInMainThread();
        return buildDetails(List.of());
    }

    // ---------------------------------------------------------------- lifecycle

    private void cancelJob() {
        if (status.isTerminal() || status == JobStatus.CANCELLING) {
            return;
        }
        LOG.info("Cancelling job {} ({})", jobGraph.jobId(), jobGraph.name());
        checkpointCoordinator.stop("the job is cancelled");
        cancelScheduledRestart();
        transitionTo(JobStatus.CANCELLING, null);
        cancelAllExecutions();
        checkAllEnded();
    }

    private void onTaskStateChange(TaskExecutionState update) {
        Execution execution = executions.get(update.attemptId());
        if (execution == null) {
            LOG.debug("Ignoring {} of {}: not part of the current deployment", update.state(), update.attemptId());
            return;
        }
        if (execution.state.isTerminal()) {
            return;
        }
        ExecutionState before = execution.state;
        boolean wasRestoring = execution.restoring;
        execution.state = update.state();
        if (execution.restoring && (update.state() == ExecutionState.RUNNING || update.state().isTerminal())) {
            execution.restoring = false;
            releaseRestoreCheckpointOnceRestored();
            if (update.state() == ExecutionState.RUNNING && executions.values().stream().allMatch(e -> !e.restoring
                    && (e.state == ExecutionState.RUNNING || e.state == ExecutionState.FINISHED))) {
                restoreFallback.restoreSucceeded();
            }
        }
        switch (update.state()) {
            case FAILED -> {
                if (status == JobStatus.RUNNING) {
                    handleTaskFailure(update.failure() != null ? update.failure()
                            : new IllegalStateException("Task " + update.attemptId() + " failed without a cause"),
                            vertexName(update.attemptId()), wasRestoring ? restoreCheckpointId : -1, false);
                } else {
                    checkAllEnded();
                }
            }
            case FINISHED -> {
                // Finished without acknowledging the pending checkpoint: it is part of it as finished.
                checkpointCoordinator.taskFinished(execution.id,
                        TaskStateHandle.finished(execution.id.vertexId(), execution.id.subtaskIndex()));
                if (status == JobStatus.RUNNING && executions.values().stream().allMatch(e -> e.state == ExecutionState.FINISHED)) {
                    checkpointCoordinator.stop("the job finished");
                    transitionTo(JobStatus.FINISHED, EnumSet.of(JobStatus.RUNNING));
                    releaseDeployment();
                    finish(JobStatus.FINISHED);
                } else {
                    checkAllEnded();
                }
            }
            case CANCELED -> {
                if (status == JobStatus.RUNNING && before != ExecutionState.CANCELING) {
                    // Not cancelled by this job master: its task executor gave it up (it lost its job manager).
                    handleTaskFailure(new IllegalStateException("Task " + update.attemptId() + " was cancelled by task"
                            + " executor " + execution.taskExecutor.id() + " without the job master asking (the task"
                            + " executor lost its job manager or shut down)"));
                } else {
                    checkAllEnded();
                }
            }
            default -> { }
        }
    }

    /** A failure that is not one task's own report (a lost task executor, a deployment RPC, checkpoints): transient. */
    private void handleTaskFailure(Throwable cause) {
        handleTaskFailure(cause, null, -1, true);
    }

    /**
     * @param vertexName     the failed task's vertex, or {@code null}
     * @param restoringFrom  the checkpoint the failed task was still restoring from, or -1
     * @param transientCause known to be transient (not the task's own failure)
     */
    private void handleTaskFailure(Throwable cause, String vertexName, long restoringFrom, boolean transientCause) {
        StateRestoreException unusable = StateRestoreException.find(cause);
        if (unusable != null && unusable.checkpointId() == restoreCheckpointId) {
            fallBackFromUnusableCheckpoint(unusable);
            return;
        }
        lastFailure = cause;
        healthMonitor.taskFailed(cause, vertexName, restoringFrom, transientCause);
        checkpointCoordinator.abortPendingOnFailover();
        boolean unrecoverable = UnrecoverableJobException.isCauseOf(cause);
        boolean restart = !unrecoverable && notifyRestartStrategy(cause);
        recentFailures.addLast(new FailureEvent(services.clock().currentTimeMillis(), JobResult.describe(cause), restart));
        if (recentFailures.size() > JobDetails.RECENT_FAILURES_LIMIT) {
            recentFailures.removeFirst();
        }
        if (unrecoverable) {
            LOG.warn("Job {} ({}) fails without a restart: its error cannot be fixed by restarting ({}); fix the job"
                    + " and submit it again", jobGraph.jobId(), jobGraph.name(), JobResult.describe(cause), cause);
            checkpointCoordinator.stop("the job is failing");
            transitionTo(JobStatus.FAILING, EnumSet.of(JobStatus.RUNNING));
        } else if (restart) {
            LOG.info("Job {} ({}) restarts after task failure ({}): {}", jobGraph.jobId(), jobGraph.name(),
                    services.restartStrategy().describe(), JobResult.describe(cause));
            restarts++;
            restartTracker.record(JobResult.describe(cause));
            transitionTo(JobStatus.RESTARTING, EnumSet.of(JobStatus.RUNNING));
        } else {
            LOG.warn("Job {} ({}) fails: the restart strategy ({}) gives up", jobGraph.jobId(), jobGraph.name(),
                    services.restartStrategy().describe(), cause);
            checkpointCoordinator.stop("the job is failing");
            transitionTo(JobStatus.FAILING, EnumSet.of(JobStatus.RUNNING));
        }
        cancelAllExecutions();
        checkAllEnded();
    }

    /**
     * The state of the checkpoint this deployment restores from is unusable (a corrupt state file):
     * restart from the previous retained checkpoint. This is not a failure of the job's tasks and
     * does not use the restart budget; it happens at most once per retained checkpoint and round,
     * since each fallback goes to an older one; when none is left the job waits for repaired files.
     */
    private void fallBackFromUnusableCheckpoint(StateRestoreException unusable) {
        LOG.warn("Job {} ({}): checkpoint {} is unusable, falling back to the previous retained checkpoint: {}",
                jobGraph.jobId(), jobGraph.name(), unusable.checkpointId(), unusable.getMessage());
        lastFailure = new CheckpointException("Checkpoint " + unusable.checkpointId() + " is unusable: "
                + unusable.getMessage() + "; falling back to the previous retained checkpoint");
        checkpointCoordinator.abortPendingOnFailover();
        restoreFallback.start(unusable);
        restarts++;
        transitionTo(JobStatus.RESTARTING, EnumSet.of(JobStatus.RUNNING));
        cancelAllExecutions();
        checkAllEnded();
    }

    /** Records the failure with the restart strategy; whether it allows a restart. */
    private boolean notifyRestartStrategy(Throwable cause) {
        services.restartStrategy().notifyFailure(cause);
        return services.restartStrategy().canRestart();
    }

    /** Called after any task reached a terminal state while the job winds down. */
    private void checkAllEnded() {
        if (!executions.values().stream().allMatch(e -> e.state.isTerminal())) {
            return;
        }
        switch (status) {
            case RESTARTING -> {
                if (scheduledRestart == null) {
                    releaseDeployment();
                    // A fallback past an unusable checkpoint is not a failure the restart strategy paces; a restore
                    // that can never succeed is retried only slowly.
                    scheduledRestart = mainThread.schedule(this::restart, restoreFallback.inProgress()
                            ? java.time.Duration.ZERO : healthMonitor.restartDelay(services.restartStrategy().backoff()));
                }
            }
            case FAILING -> {
                transitionTo(JobStatus.FAILED, EnumSet.of(JobStatus.FAILING));
                releaseDeployment();
                finish(JobStatus.FAILED);
            }
            case SUSPENDED -> {
                releaseDeployment();
                finish(JobStatus.SUSPENDED);
            }
            case CANCELLING -> {
                transitionTo(JobStatus.CANCELED, EnumSet.of(JobStatus.CANCELLING));
                releaseDeployment();
                finish(JobStatus.CANCELED);
            }
            default -> { }
        }
    }

    private void restart() {
        scheduledRestart = null;
        if (status != JobStatus.RESTARTING) {
            return;
        }
        if (!restoreFallback.readyToDeploy(this::restartAfterFallback, this::waitForRepairedState,
                fallbackEvent -> lastFailure = new CheckpointException(fallbackEvent))) {
            return;
        }
        if (!acquireSlots()) {
            return; // waits in RESTARTING; onSlotsAdded restarts it
        }
        deployAll();
        transitionTo(JobStatus.RUNNING, EnumSet.of(JobStatus.RESTARTING));
    }

    /** The fallback's storage work finished (or needs a retry): restart if still restarting. */
    private void restartAfterFallback(java.time.Duration delay) {
        if (status != JobStatus.RESTARTING || scheduledRestart != null) {
            return;
        }
        if (delay.isZero()) {
            restart();
        } else {
            scheduledRestart = mainThread.schedule(this::restart, delay);
        }
    }

    /**
     * No retained checkpoint has usable state: the job does not end. It stays RESTARTING with its
     * graph and checkpoints, {@code message} as its failure, and tries again after {@code retryIn}
     * (or is cancelled meanwhile).
     */
    private void waitForRepairedState(String message, java.time.Duration retryIn) {
        if (status != JobStatus.RESTARTING || scheduledRestart != null) {
            return;
        }
        lastFailure = new CheckpointException(message);
        healthMonitor.restoreWaiting(message);
        scheduledRestart = mainThread.schedule(this::restart, retryIn);
    }

    /**
     * Takes the slots for the next deployment from the dynamic pool (with a fixed list: nothing to
     * do). Too few: records what the job waits for and returns false; the pool's next added slots
     * try again. Waiting is not a failure: the restart strategy is not asked.
     */
    private boolean acquireSlots() {
        SlotPool pool = services.slotPool();
        if (pool == null) {
            return true;
        }
        try {
            slots = pool.allocate(jobGraph.jobId(), jobGraph.requiredSlots());
            if (waitingForSlots != null) {
                LOG.info("Job {} ({}): {} slot(s) available; deploying", jobGraph.jobId(), jobGraph.name(),
                        jobGraph.requiredSlots());
            }
            waitingForSlots = null;
            return true;
        } catch (SlotPool.NotEnoughSlotsException e) {
            String waiting = pool.describeShortage(jobGraph.jobId(), jobGraph.requiredSlots());
            if (!waiting.equals(waitingForSlots)) {
                LOG.info("Job {} ({}) is {}: {}", jobGraph.jobId(), jobGraph.name(), status, waiting);
            }
            waitingForSlots = waiting;
            return false;
        }
    }

    /** The dynamic pool got slots: a job waiting for them tries again. */
    private void onSlotsAdded() {
        if (waitingForSlots == null) {
            return;
        }
        if (status == JobStatus.CREATED) {
            start();
        } else if (status == JobStatus.RESTARTING && scheduledRestart == null) {
            restart();
        }
    }

    /**
     * A task executor left the dynamic pool. Tasks of the current deployment there are gone without
     * a report: they count as failed, and a running job fails over.
     */
    private void onTaskExecutorLost(String taskExecutorId, String reason) {
        // A suspended job master still waits for its tasks: a lost task executor's tasks count as ended (its
        // task manager cancels them before it joins another leader, and its reports are fenced off from here).
        if (status.isTerminal() && status != JobStatus.SUSPENDED) {
            return;
        }
        if (waitingForSlots != null) {
            waitingForSlots = services.slotPool().describeShortage(jobGraph.jobId(), jobGraph.requiredSlots());
        }
        // Nothing more is asked of it (task counters for status would wait for their timeout); the next
        // deployment takes fresh slots from the pool anyway.
        slots = slots.stream().filter(te -> !te.id().equals(taskExecutorId)).toList();
        List<Execution> lost = executions.values().stream()
                .filter(e -> !e.state.isTerminal() && e.taskExecutor.id().equals(taskExecutorId)).toList();
        if (lost.isEmpty()) {
            return;
        }
        LOG.warn("Job {} ({}): {} task(s) lost with task executor {}: {}", jobGraph.jobId(), jobGraph.name(),
                lost.size(), taskExecutorId, reason);
        boolean wasRestoring = false;
        for (Execution e : lost) {
            e.state = ExecutionState.FAILED;
            wasRestoring |= e.restoring;
            e.restoring = false;
        }
        if (wasRestoring) {
            releaseRestoreCheckpointOnceRestored();
        }
        if (status == JobStatus.RUNNING) {
            handleTaskFailure(new TaskExecutorLostException(taskExecutorId, reason));
        } else {
            checkAllEnded();
        }
    }

    private void deployAll() {
        deployment = DEPLOYMENTS.incrementAndGet();
        executions.clear();
        Optional<CompletedCheckpoint> latest = services.checkpointStore().latest();
        restoreCheckpointId = latest.map(CompletedCheckpoint::checkpointId).orElse(-1L);
        latest.ifPresent(cp -> LOG.info("Job {}: restoring from checkpoint {} (in memory)", jobGraph.jobId(), cp.checkpointId()));
        if (latest.isPresent()) {
            checkpointCoordinator.restoreStarting(latest.get().checkpointId());
        } else {
            checkpointCoordinator.restoreFinished();
        }
        List<TaskDeploymentDescriptor> descriptors = new ArrayList<>();
        List<String> dataAddresses = new ArrayList<>();
        for (TaskExecutorGateway te : slots) { // the allocated slots (a dynamic pool's, or the fixed ones)
            dataAddresses.add(te.dataAddress()); // a constant of the gateway: no call to the task executor
        }
        for (JobVertex vertex : jobGraph.vertices()) {
            for (int subtask = 0; subtask < vertex.parallelism(); subtask++) {
                ExecutionAttemptId id = new ExecutionAttemptId(jobGraph.jobId(), vertex.id(), subtask, deployment);
                TaskExecutorGateway te = slots.get(subtask);
                executions.put(id, new Execution(id, te, vertex.isSource(), latest.isPresent()));
                descriptors.add(new TaskDeploymentDescriptor(jobGraph, id, restarts,
                        latest.map(cp -> restoreFor(cp, vertex, id.subtaskIndex())).orElse(null), dataAddresses));
            }
        }
        for (TaskDeploymentDescriptor d : descriptors) {
            Execution e = executions.get(d.attemptId());
            e.taskExecutor.submitTask(d, this).whenCompleteAsync((ack, error) -> {
                if (error != null && executions.get(d.attemptId()) == e && !e.state.isTerminal()) {
                    onTaskStateChange(new TaskExecutionState(d.attemptId(), ExecutionState.FAILED,
                            new IllegalStateException("Could not deploy " + d.attemptId() + " to task executor "
                                    + e.taskExecutor.id(), error)));
                }
            }, mainThread);
        }
    }

    /** Unpins the restore checkpoint once no task of the current deployment may still read it. */
    private void releaseRestoreCheckpointOnceRestored() {
        for (Execution e : executions.values()) {
            if (e.restoring) {
                return;
            }
        }
        checkpointCoordinator.restoreFinished();
    }

    /**
     * The state a subtask restores: its source position and the handles (state files or inline
     * state) holding its key groups.
     */
    static TaskRestore restoreFor(CompletedCheckpoint cp, JobVertex vertex, int subtask) {
        TaskStateHandle own = cp.stateOf(vertex.id(), subtask);
        if (own != null && own.isFinished()) {
            return new TaskRestore(cp.checkpointId(), null, List.of(), true);
        }
        List<TaskStateHandle> keyed = new ArrayList<>();
        if (vertex.hasKeyedState()) {
            KeyGroupRange mine = KeyGroups.rangeForSubtask(subtask, vertex.maxParallelism(), vertex.parallelism());
            for (TaskStateHandle h : cp.taskStates()) {
                if (h.vertexId() == vertex.id() && h.hasKeyedState() && h.keyGroupRange() != null
                        && h.keyGroupRange().start() <= mine.end() && mine.start() <= h.keyGroupRange().end()) {
                    keyed.add(h);
                }
            }
        }
        return new TaskRestore(cp.checkpointId(), own == null ? null : own.sourcePosition(), keyed, false,
                operatorStateHandles(cp, vertex, subtask));
    }

    /**
     * The handles with operator state (a two-phase-commit sink's committables) that {@code subtask}
     * restores: its own, then those of subtasks beyond the current parallelism that map to it
     * ({@code s % parallelism}), so that no committable is left behind when the parallelism was lowered.
     */
    static List<TaskStateHandle> operatorStateHandles(CompletedCheckpoint cp, JobVertex vertex, int subtask) {
        List<TaskStateHandle> out = new ArrayList<>();
        TaskStateHandle own = cp.stateOf(vertex.id(), subtask);
        if (own != null && own.hasOperatorState()) {
            out.add(own);
        }
        for (TaskStateHandle h : cp.taskStates()) {
            if (h.vertexId() == vertex.id() && h.hasOperatorState() && h.subtaskIndex() >= vertex.parallelism()
                    && h.subtaskIndex() % vertex.parallelism() == subtask) {
                out.add(h);
            }
        }
        return out;
    }

    private void cancelAllExecutions() {
        for (Execution e : executions.values()) {
            if (!e.state.isTerminal()) {
                e.state = e.state == ExecutionState.DEPLOYING || e.state == ExecutionState.RUNNING
                        ? ExecutionState.CANCELING : e.state;
                e.taskExecutor.cancelTask(e.id);
            }
        }
    }

    private void cancelScheduledRestart() {
        if (scheduledRestart != null) {
            scheduledRestart.cancel();
            scheduledRestart = null;
        }
    }

    private void releaseDeployment() {
        if (deployment >= 0) {
            services.shuffleMaster().releaseDeployment(jobGraph.jobId(), deployment);
            // Task executors that exchange data over the network hold their own channel ends.
            for (TaskExecutorGateway te : distinctTaskExecutors()) {
                if (te.dataAddress() != null) {
                    te.releaseChannels(jobGraph.jobId(), deployment);
                }
            }
        }
    }

    private void finish(JobStatus terminal) {
        if (listeningToPool) {
            services.slotPool().removeListener(poolListener);
            listeningToPool = false;
        }
        waitingForSlots = null;
        finalDetails = buildDetails(lastMetrics);
        Throwable failure = terminal == JobStatus.FAILED ? lastFailure : null;
        resultFuture.complete(JobResult.of(jobGraph.jobId(), jobGraph.name(), terminal,
                services.clock().currentTimeMillis(), failure));
    }

    private void transitionTo(JobStatus next, Set<JobStatus> allowedFrom) {
        if (allowedFrom != null && !allowedFrom.contains(status)) {
            throw new IllegalStateException("Job " + jobGraph.jobId() + ": illegal transition " + status + " -> " + next);
        }
        LOG.info("Job {} ({}) switched from {} to {}", jobGraph.jobId(), jobGraph.name(), status, next);
        status = next;
        transitions.add(new JobStatusTransition(next, services.clock().currentTimeMillis()));
        statusListener.accept(next);
    }

    private List<TaskExecutorGateway> distinctTaskExecutors() {
        List<TaskExecutorGateway> out = new ArrayList<>();
        for (TaskExecutorGateway te : slots) {
            if (!out.contains(te)) {
                out.add(te);
            }
        }
        return out;
    }

    private JobDetails buildDetails(List<TaskMetrics> metrics) {
        List<VertexStatus> vertices = new ArrayList<>();
        for (JobVertex v : jobGraph.vertices()) {
            long in = 0, out = 0, lateDropped = 0;
            io.sluice.operators.CommitStats commits = null;
            int running = 0;
            long[] subtaskIn = new long[v.parallelism()];
            long[] subtaskOut = new long[v.parallelism()];
            for (TaskMetrics m : metrics) {
                if (m.attemptId().vertexId() == v.id() && m.attemptId().deployment() == deployment) {
                    in += m.recordsIn();
                    out += m.recordsOut();
                    lateDropped += m.lateRecordsDropped();
                    if (m.commits() != null) {
                        commits = commits == null ? m.commits() : commits.plus(m.commits());
                    }
                    if (m.state() == ExecutionState.RUNNING) {
                        running++;
                    }
                    if (m.attemptId().subtaskIndex() < v.parallelism()) {
                        subtaskIn[m.attemptId().subtaskIndex()] += m.recordsIn();
                        subtaskOut[m.attemptId().subtaskIndex()] += m.recordsOut();
                    }
                }
            }
            List<SubtaskStatus> subtasks = new ArrayList<>();
            for (Execution e : executions.values()) {
                if (e.id.vertexId() == v.id()) {
                    int i = e.id.subtaskIndex();
                    subtasks.add(new SubtaskStatus(i, e.state, subtaskIn[i], subtaskOut[i]));
                }
            }
            subtasks.sort(java.util.Comparator.comparingInt(SubtaskStatus::subtaskIndex));
            vertices.add(new VertexStatus(v.id(), v.name(), v.parallelism(), running, in, out, subtasks, lateDropped,
                    commits));
        }
        RecoveryStatus waiting = waitingForSlots == null ? null
                : new RecoveryStatus(waitingForSlots, 0, -1, 0, 0, null, 0, List.of());
        return new JobDetails(jobGraph.jobId(), jobGraph.name(), status, transitions, vertices,
                checkpointCoordinator.stats(), restarts, lastFailure == null ? null : JobResult.describe(lastFailure),
                waiting, restartTracker.history(), List.copyOf(recentFailures), healthMonitor.health(status));
    }

    /**
     * A crash loop, or checkpoints older than {@code checkpoints.stale-after}, for the job list. Any
     * thread: from memory, without a hop to the main thread.
     */
    public io.sluice.protocol.JobHealth health() {
        return healthMonitor.health(status);
    }

    /** Milliseconds since the latest completed checkpoint (or this job master's start); 0 when not checkpointing. Any thread. */
    public long checkpointAgeMillis() {
        return healthMonitor.checkpointAgeMillis(status);
    }

    private String vertexName(ExecutionAttemptId id) {
        return jobGraph.vertex(id.vertexId()).name();
    }

    /** The details at the moment the job ended under this job master, or {@code null} before. Any thread. */
    public JobDetails finalDetails() {
        return finalDetails;
    }

    /** For tests: the status as seen on the main thread. */
    public JobStatus status() {
        mainThread.assertRunningInMainThread();
        return status;
    }

    /** The checkpoint coordinator; main thread only. */
    public CheckpointCoordinator checkpointCoordinator() {
        return checkpointCoordinator;
    }

    private final class CoordinatorContext implements CheckpointCoordinator.Context {
        /** Every task runs or has finished, and a source still runs to inject the barriers. */
        @Override
        public boolean canTriggerCheckpoint() {
            return status == JobStatus.RUNNING && !executions.isEmpty()
                    && executions.values().stream().allMatch(e -> e.state == ExecutionState.RUNNING
                            || e.state == ExecutionState.FINISHED)
                    && executions.values().stream().anyMatch(e -> e.source && e.state == ExecutionState.RUNNING);
        }

        @Override
        public List<ExecutionAttemptId> tasksToTrigger() {
            return executions.values().stream().filter(e -> e.source && e.state == ExecutionState.RUNNING)
                    .map(e -> e.id).toList();
        }

        @Override
        public List<ExecutionAttemptId> tasksToAcknowledge() {
            return executions.values().stream().filter(e -> e.state != ExecutionState.FINISHED).map(e -> e.id).toList();
        }

        @Override
        public List<TaskStateHandle> finishedTaskStates() {
            return executions.values().stream().filter(e -> e.state == ExecutionState.FINISHED)
                    .map(e -> TaskStateHandle.finished(e.id.vertexId(), e.id.subtaskIndex())).toList();
        }

        @Override
        public void triggerTask(ExecutionAttemptId task, long checkpointId, long timestampMillis) {
            executions.get(task).taskExecutor.triggerCheckpoint(task, checkpointId, timestampMillis);
        }

        @Override
        public void notifyTaskCheckpointComplete(ExecutionAttemptId task, long checkpointId) {
            Execution e = executions.get(task);
            if (e != null && e.state == ExecutionState.RUNNING) {
                e.taskExecutor.notifyCheckpointComplete(task, checkpointId);
            }
        }

        @Override
        public void failJob(Throwable cause) {
            if (status == JobStatus.RUNNING) {
                handleTaskFailure(cause);
            }
        }
    }
}
