package io.sluice.taskexecutor;

import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.protocol.TaskMetrics;
import io.sluice.util.Clock;
import io.sluice.util.SystemClock;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.graph.JobId;
import io.sluice.jar.ClassLoaderLease;
import io.sluice.jar.UserCodeClassLoaders;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.network.ShuffleEnvironment;
import io.sluice.rpc.Acknowledge;
import io.sluice.rpc.MainThreadExecutor;
import java.util.ArrayList;
import java.util.concurrent.CompletionException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks in slots. Its main thread keeps the table of tasks; each task runs on its own thread
 * ({@link Task}) and its checkpoint uploads on the I/O executor. Task state changes are recorded on
 * the main thread and forwarded to the task's job master. A task of a job from a jar runs with the
 * job's class loader as its thread's context class loader (its user code is deserialized with it;
 * {@link JobClassLoaderFetcher}) and holds a lease on it until the task has ended.
 *
 * <p>Threads: gateway methods may be called from any thread (an RPC event loop, a job master's main
 * thread) and hop onto this task executor's main thread, where every field below lives; the private
 * steps check it. The exception is {@link #requestTaskMetrics}: it reads the tasks' counters through
 * {@link #taskIndex}, a concurrent copy of the table written only on the main thread, on the calling
 * thread, so a job's status never waits behind this task executor's deployments of other jobs. Each task gets the same {@link TaskServices}, apart from its job master and class
 * loader, including the {@link KeyedStateBackendFactory} given to the constructor (the heap by default).
 */
public final class TaskExecutor implements TaskExecutorGateway {
    private static final Logger LOG = LoggerFactory.getLogger(TaskExecutor.class);
    /** How long a job may have no task here before its task-local state is released. */
    static final java.time.Duration LOCAL_STATE_IDLE_GRACE = java.time.Duration.ofMinutes(10);

    private final String id;
    private final int slots;
    private final MainThreadExecutor mainThread;
    private final ExecutorService ioExecutor;
    private final ShuffleEnvironment shuffle;
    private final CheckpointStorageRegistry storages;
    private final Map<ExecutionAttemptId, RunningTask> tasks = new HashMap<>();
    /** The tasks of {@link #tasks}, for {@link #requestTaskMetrics}: written on the main thread only, read from any. */
    private final Map<ExecutionAttemptId, Task> taskIndex = new ConcurrentHashMap<>();
    private final TaskLocalStateStore localState;
    private final JobClassLoaderFetcher classLoaders;
    private final Clock clock;
    private final KeyedStateBackendFactory keyedStateBackends;
    /** Completed (on the main thread) once no task is left; see {@link #cancelAllTasks}. */
    private final List<CompletableFuture<Void>> whenNoTasks = new ArrayList<>();
    /**
     * Submitted tasks not started yet (their job's class loader is on its way: at least one more
     * main-thread step), and those of them cancelled meanwhile, which then never start. Main thread.
     */
    private final Set<ExecutionAttemptId> starting = new HashSet<>();
    private final Set<ExecutionAttemptId> cancelledBeforeStart = new HashSet<>();

    private record RunningTask(Task task, JobMasterGateway jobMaster, ClassLoaderLease classLoader, TaskMeters meters) {
    }

    /** A task executor whose tasks all use the runtime's own class loader (no jobs from jars). */
    public TaskExecutor(String id, int slots, MainThreadExecutor mainThread, ExecutorService ioExecutor,
                        ShuffleEnvironment shuffle, CheckpointStorageRegistry storages) {
        this(id, slots, mainThread, ioExecutor, shuffle, storages, null, SystemClock.INSTANCE);
    }

    /** @param userCode the class loaders of jobs from jars, shared with the job managers; {@code null}: none */
    public TaskExecutor(String id, int slots, MainThreadExecutor mainThread, ExecutorService ioExecutor,
                        ShuffleEnvironment shuffle, CheckpointStorageRegistry storages, UserCodeClassLoaders userCode) {
        this(id, slots, mainThread, ioExecutor, shuffle, storages, userCode, SystemClock.INSTANCE);
    }

    /** @param clock the processing time of the tasks' operators (timers, periodic watermarks, idleness) */
    public TaskExecutor(String id, int slots, MainThreadExecutor mainThread, ExecutorService ioExecutor,
                        ShuffleEnvironment shuffle, CheckpointStorageRegistry storages, Clock clock) {
        this(id, slots, mainThread, ioExecutor, shuffle, storages, null, clock);
    }

    /**
     * @param userCode the class loaders of jobs from jars, shared with the job managers; {@code null}: none
     * @param clock    the processing time of the tasks' operators (timers, periodic watermarks, idleness)
     */
    public TaskExecutor(String id, int slots, MainThreadExecutor mainThread, ExecutorService ioExecutor,
                        ShuffleEnvironment shuffle, CheckpointStorageRegistry storages, UserCodeClassLoaders userCode,
                        Clock clock) {
        this(id, slots, mainThread, ioExecutor, shuffle, storages, userCode, clock, KeyedStateBackendFactory.heap());
    }

    /**
     * @param userCode           the class loaders of jobs from jars, shared with the job managers; {@code null}: none
     * @param clock              the processing time of the tasks' operators (timers, periodic watermarks, idleness)
     * @param keyedStateBackends creates the keyed state backend of every task with keyed state
     */
    public TaskExecutor(String id, int slots, MainThreadExecutor mainThread, ExecutorService ioExecutor,
                        ShuffleEnvironment shuffle, CheckpointStorageRegistry storages, UserCodeClassLoaders userCode,
                        Clock clock, KeyedStateBackendFactory keyedStateBackends) {
        this(id, slots, mainThread, ioExecutor, shuffle, storages, userCode, clock, keyedStateBackends,
                TaskLocalStateStore.directoryFor(new io.sluice.config.Configuration(), id));
    }

    /**
     * @param userCode               the class loaders of jobs from jars, shared with the job managers; {@code null}:
     *                               none
     * @param clock                  the processing time of the tasks' operators (timers, periodic watermarks,
     *                               idleness)
     * @param keyedStateBackends     creates the keyed state backend of every task with keyed state
     * @param localRecoveryDirectory where task-local recovery keeps the files of RocksDB's checkpoints
     *                               ({@link TaskLocalStateStore#directoryFor}); this task executor's alone, deleted
     *                               by {@link #closeLocalState}
     */
    public TaskExecutor(String id, int slots, MainThreadExecutor mainThread, ExecutorService ioExecutor,
                        ShuffleEnvironment shuffle, CheckpointStorageRegistry storages, UserCodeClassLoaders userCode,
                        Clock clock, KeyedStateBackendFactory keyedStateBackends, java.nio.file.Path localRecoveryDirectory) {
        this.localState = new TaskLocalStateStore(localRecoveryDirectory);
        this.classLoaders = new JobClassLoaderFetcher(id, userCode, mainThread, ioExecutor);
        this.clock = java.util.Objects.requireNonNull(clock, "clock");
        this.keyedStateBackends = java.util.Objects.requireNonNull(keyedStateBackends, "keyedStateBackends");
        this.id = id;
        this.slots = slots;
        this.mainThread = mainThread;
        this.ioExecutor = ioExecutor;
        this.shuffle = shuffle;
        this.storages = storages;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public int numberOfSlots() {
        return slots;
    }

    @Override
    public String dataAddress() {
        return shuffle.dataAddress();
    }

    /** Where this task executor's tasks get their channels. */
    public ShuffleEnvironment shuffleEnvironment() {
        return shuffle;
    }

    @Override
    public CompletableFuture<Acknowledge> submitTask(TaskDeploymentDescriptor descriptor, JobMasterGateway jobMaster) {
        JobId jobId = descriptor.attemptId().jobId();
        ExecutionAttemptId attempt = descriptor.attemptId();
        return CompletableFuture.supplyAsync(() -> {
            if (tasks.containsKey(attempt) || !starting.add(attempt)) {
                throw new IllegalStateException("Task " + attempt + " is already running on " + id);
            }
            return classLoaders.classLoaderFor(jobId);
        }, mainThread)
                .thenCompose(lease -> lease.handle((classLoader, error) -> new Loaded(classLoader, error)))
                .thenApplyAsync(loaded -> {
                    starting.remove(attempt);
                    boolean cancelled = cancelledBeforeStart.remove(attempt);
                    if (loaded.error() != null) {
                        signalIfNoTasks();
                        throw loaded.error() instanceof CompletionException c ? c : new CompletionException(loaded.error());
                    }
                    if (cancelled) {
                        // cancelTask came while the loader was on its way: the task never starts, and its
                        // job master hears CANCELED as it would from a task that ran.
                        loaded.classLoader().close();
                        LOG.info("Task {} was cancelled on {} before it started", attempt, id);
                        jobMaster.updateTaskExecutionState(new TaskExecutionState(attempt, ExecutionState.CANCELED, null));
                        signalIfNoTasks();
                        return Acknowledge.INSTANCE;
                    }
                    return startTask(descriptor, jobMaster, loaded.classLoader());
                }, mainThread);
    }

    /** The outcome of getting a task's class loader. */
    private record Loaded(ClassLoaderLease classLoader, Throwable error) {
    }

    /**
     * Main thread, a task of {@code jobId} ended: if no task of the job is left here, its task-local copies go
     * once {@link #LOCAL_STATE_IDLE_GRACE} passed without a new one (the job ended, or runs elsewhere now). A
     * task executor is not told that a job ended, so without this the local files of every ended job stayed
     * until the task executor stopped. A job that restarts here later than that reads checkpoint storage.
     */
    private void releaseLocalStateWhenIdle(JobId jobId) {
        mainThread.assertRunningInMainThread();
        if (hasTaskOf(jobId)) {
            return;
        }
        mainThread.schedule(() -> {
            if (!hasTaskOf(jobId)) {
                LOG.info("No task of job {} ran here for {}: its task-local state is released", jobId,
                        LOCAL_STATE_IDLE_GRACE);
                offMainThread(() -> localState.discardJob(jobId));
            }
        }, LOCAL_STATE_IDLE_GRACE);
    }

    private boolean hasTaskOf(JobId jobId) {
        return tasks.keySet().stream().anyMatch(a -> a.jobId().equals(jobId))
                || starting.stream().anyMatch(a -> a.jobId().equals(jobId));
    }

    /**
     * Main thread: once no task is running or starting, forgets the channels of the lost job
     * manager's rounds and completes the waiters of {@link #cancelAllTasks}.
     */
    private void signalIfNoTasks() {
        mainThread.assertRunningInMainThread();
        if (tasks.isEmpty() && starting.isEmpty() && !whenNoTasks.isEmpty()) {
            forgetDeployments();
            List<CompletableFuture<Void>> waiting = List.copyOf(whenNoTasks);
            whenNoTasks.clear();
            waiting.forEach(f -> f.complete(null));
        }
    }

    /**
     * Main thread, no task left after the job manager was lost: the next job manager may be another
     * process whose job masters number their deployment rounds from 1 again, so the channels and
     * release marks of the old rounds must not meet its rounds (see
     * {@link io.sluice.network.ShuffleEnvironment#forgetAllDeployments}).
     */
    private void forgetDeployments() {
        shuffle.forgetAllDeployments(new IllegalStateException("task executor " + id + " lost its job manager;"
                + " the channels of that job manager's deployments are released"));
    }

    /** Main thread: starts the task with its job's loader, which the task holds until it has ended. */
    private Acknowledge startTask(TaskDeploymentDescriptor descriptor, JobMasterGateway jobMaster,
                                  ClassLoaderLease classLoader) {
        mainThread.assertRunningInMainThread();
        try {
            if (tasks.containsKey(descriptor.attemptId())) {
                throw new IllegalStateException("Task " + descriptor.attemptId() + " is already running on " + id);
            }
            CheckpointStorage storage = storages.forLocation(descriptor.jobGraph().config().checkpointDir());
            TaskServices services = new TaskServices(jobMaster, shuffle, storage, ioExecutor, localState,
                    state -> mainThread.execute(() -> onTaskState(state)), classLoader.classLoader(), clock,
                    keyedStateBackends);
            Task task = new Task(descriptor, services);
            tasks.put(descriptor.attemptId(), new RunningTask(task, jobMaster, classLoader,
                    TaskMeters.register(storages.meterRegistry(), task)));
            taskIndex.put(descriptor.attemptId(), task);
            task.start();
            return Acknowledge.INSTANCE;
        } catch (RuntimeException e) {
            classLoader.close();
            throw e;
        }
    }

    /** Main thread: a task's reported state, forwarded to its job master; an ended task leaves the table. */
    private void onTaskState(TaskExecutionState state) {
        mainThread.assertRunningInMainThread();
        RunningTask running = state.state().isTerminal() ? tasks.remove(state.attemptId()) : tasks.get(state.attemptId());
        if (state.state().isTerminal()) {
            taskIndex.remove(state.attemptId());
        }
        if (running == null) {
            return;
        }
        if (state.state().isTerminal()) {
            running.meters().close();
            running.classLoader().close();
            signalIfNoTasks();
            releaseLocalStateWhenIdle(state.attemptId().jobId());
        }
        if (state.state() == ExecutionState.RUNNING && !state.awaitingFinalCheckpoint()) {
            running.meters().registerSinkMetersIfAny(running.task()); // its operators are known once it runs
        }
        running.jobMaster().updateTaskExecutionState(state).whenComplete((ack, error) -> {
            if (error != null) {
                LOG.debug("Could not report {} of {} to its job master", state.state(), state.attemptId(), error);
            }
        });
        if (state.state() == ExecutionState.FINISHED) {
            ExecutionAttemptId a = state.attemptId();
            offMainThread(() -> localState.discard(a.jobId(), a.vertexId(), a.subtaskIndex()));
        }
    }

    /**
     * Runs {@code localStateWork} (it deletes files) on the I/O executor: a main thread does no I/O. Once the task
     * executor stops, the I/O executor refuses, and {@link #closeLocalState} deletes everything anyway.
     */
    private void offMainThread(Runnable localStateWork) {
        try {
            ioExecutor.execute(localStateWork);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            LOG.debug("{} stops; its task-local state goes when it closes", id);
        }
    }

    @Override
    public CompletableFuture<Acknowledge> cancelTask(ExecutionAttemptId task) {
        return CompletableFuture.supplyAsync(() -> {
            RunningTask running = tasks.get(task);
            if (running != null) {
                running.task().cancel();
            } else if (starting.contains(task)) {
                cancelledBeforeStart.add(task);
            }
            return Acknowledge.INSTANCE;
        }, mainThread);
    }

    @Override
    public void triggerCheckpoint(ExecutionAttemptId task, long checkpointId, long timestampMillis) {
        mainThread.execute(() -> {
            RunningTask running = tasks.get(task);
            if (running != null) {
                running.task().triggerCheckpoint(checkpointId, timestampMillis);
            }
        });
    }

    @Override
    public void triggerSavepoint(ExecutionAttemptId task, long checkpointId, long timestampMillis, boolean stop) {
        mainThread.execute(() -> {
            RunningTask running = tasks.get(task);
            if (running != null) {
                running.task().triggerSavepoint(checkpointId, timestampMillis, stop);
            }
        });
    }

    @Override
    public void notifyCheckpointComplete(ExecutionAttemptId task, long checkpointId) {
        mainThread.execute(() -> {
            RunningTask running = tasks.get(task);
            if (running != null) {
                running.task().notifyCheckpointComplete(checkpointId);
            }
        });
    }

    /**
     * Tells the task's operators, on its task thread, that the checkpoint will not complete (see
     * {@link io.sluice.operators.StreamOperator#notifyCheckpointAborted}). Nothing for an unknown task.
     */
    @Override
    public void notifyCheckpointAborted(ExecutionAttemptId task, long checkpointId) {
        mainThread.execute(() -> {
            RunningTask running = tasks.get(task);
            if (running != null) {
                running.task().notifyCheckpointAborted(checkpointId);
            }
        });
    }

    /**
     * The counters of {@code jobId}'s tasks here, read on the calling thread from {@link #taskIndex}
     * (racy reads, as for metrics): never queued behind this task executor's main thread. Any thread.
     */
    @Override
    public CompletableFuture<List<TaskMetrics>> requestTaskMetrics(JobId jobId) {
        List<TaskMetrics> out = new ArrayList<>();
        for (Task t : taskIndex.values()) {
            if (t.attemptId().jobId().equals(jobId)) {
                out.add(t.metrics());
            }
        }
        return CompletableFuture.completedFuture(out);
    }

    /**
     * Cancels every task because their job manager is lost (no heartbeat, or the leader changed):
     * their job masters are gone or fail them over anyway, and without a job master nobody may
     * commit their checkpoints. Once they have ended, the channels of their deployments are
     * forgotten ({@link io.sluice.network.ShuffleEnvironment#forgetAllDeployments}), so that the next
     * job manager's rounds get fresh ones even when it numbers them like the old one. Any thread.
     *
     * @return completes on the main thread once no task is left on this task executor (a task that
     *         ignores the cancellation keeps it pending; callers bound their wait)
     */
    public CompletableFuture<Void> cancelAllTasks(String reason) {
        return CompletableFuture.supplyAsync(() -> {
            if (!tasks.isEmpty()) {
                LOG.warn("Task executor {} cancels its {} task(s): {}", id, tasks.size(), reason);
            }
            tasks.values().forEach(t -> t.task().cancel());
            cancelledBeforeStart.addAll(starting);
            CompletableFuture<Void> ended = new CompletableFuture<>();
            if (tasks.isEmpty() && starting.isEmpty()) {
                forgetDeployments();
                ended.complete(null);
            } else {
                whenNoTasks.add(ended);
            }
            return ended;
        }, mainThread).thenCompose(f -> f);
    }

    @Override
    public void releaseChannels(JobId jobId, int deployment) {
        mainThread.execute(() -> shuffle.releaseAttempt(jobId, deployment,
                new IllegalStateException("deployment " + deployment + " of job " + jobId + " ended")));
    }

    /** Cancels every task (on shutdown). */
    public CompletableFuture<Void> cancelAll() {
        return CompletableFuture.runAsync(() -> {
            tasks.values().forEach(t -> t.task().cancel());
            cancelledBeforeStart.addAll(starting);
        }, mainThread);
    }

    /** The local state copies of task-local recovery (for tests and metrics). */
    public TaskLocalStateStore localState() {
        return localState;
    }

    /**
     * The task executor stops: deletes the task-local copies and their directory. Called by the thread that stops
     * it, once its tasks were cancelled; a restore on this task executor reads checkpoint storage afterwards.
     */
    public void closeLocalState() {
        localState.close();
    }

    /** Number of tasks not yet ended (for tests). */
    public CompletableFuture<Integer> numberOfTasks() {
        return CompletableFuture.supplyAsync(tasks::size, mainThread);
    }
}
