package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.network.LocalShuffleService;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskMetrics;
import io.sluice.rpc.Acknowledge;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.RecordingJobMasterGateway;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The task executor's table of tasks, on a manually triggered main thread: submissions, duplicate
 * rejection, cancellation, state reports forwarded to the submitting job master in order (and only
 * from the main thread), metrics per job, and commands for unknown tasks. Tasks run on their own
 * threads (as in production); the test waits (bounded) only for their reports to be queued on the
 * main thread and then runs that thread itself.
 */
@Timeout(60)
class TaskExecutorTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor main = new ManuallyTriggeredMainThreadExecutor("taskexecutor-test", clock);
    private final ExecutorService io = Executors.newCachedThreadPool();
    private final RecordingJobMasterGateway jobMaster = new RecordingJobMasterGateway(main);
    private CheckpointStorageRegistry storages;
    private TaskExecutor taskExecutor;

    @BeforeEach
    void setUp() {
        storages = new CheckpointStorageRegistry(new SimpleMeterRegistry());
        taskExecutor = new TaskExecutor("te-test", 2, main, io, new LocalShuffleService(), storages);
    }

    @AfterEach
    void tearDown() {
        taskExecutor.cancelAll();
        main.triggerAll();
        io.shutdownNow();
        storages.close();
    }

    @Test
    void aTaskRunsToFinishedItsReportsReachTheJobMasterInOrderAndItLeavesTheTable() {
        TaskDeploymentDescriptor d = descriptor(bounded(), 1);

        CompletableFuture<Acknowledge> ack = taskExecutor.submitTask(d, jobMaster);
        assertThat(ack).as("nothing happens before the main thread runs").isNotDone();
        main.triggerAll();
        assertThat(ack).isCompleted();

        awaitReport(d.attemptId(), ExecutionState.FINISHED);

        assertThat(jobMaster.states(d.attemptId())).containsExactly(ExecutionState.RUNNING, ExecutionState.FINISHED);
        assertThat(jobMaster.reportedOnMainThread()).isTrue();
        assertThat(onMain(taskExecutor::numberOfTasks)).isZero();
    }

    /**
     * A task executor is not told that a job ended: the task-local state of a job none of whose tasks ran here
     * for {@code LOCAL_STATE_IDLE_GRACE} is released then; a task of the job submitted within it keeps it.
     * Before, local copies (RocksDB's files on disk among them) of every ended job stayed until the task
     * executor stopped.
     */
    @Test
    void theLocalStateOfAJobWithNoTaskHereForTheGraceIsReleasedAndANewTaskWithinItKeepsIt() {
        JobGraph graph = unbounded();
        TaskDeploymentDescriptor first = descriptor(graph, 1);
        JobId job = first.attemptId().jobId();
        taskExecutor.localState().store(job, 9, 0, 3, "chk-3/9-0.state", new byte[] {1});
        taskExecutor.submitTask(first, jobMaster);
        main.triggerAll();
        awaitReport(first.attemptId(), ExecutionState.RUNNING);
        taskExecutor.cancelTask(first.attemptId());
        main.triggerAll();
        awaitReport(first.attemptId(), ExecutionState.CANCELED);

        main.advanceTime(TaskExecutor.LOCAL_STATE_IDLE_GRACE.minusSeconds(1));
        assertThat(taskExecutor.localState().retrieve(job, 9, 0, 3, "chk-3/9-0.state", 1)).as("within the grace")
                .isPresent();
        TaskDeploymentDescriptor second = descriptor(graph, 2); // the job restarts here
        taskExecutor.submitTask(second, jobMaster);
        main.triggerAll();
        awaitReport(second.attemptId(), ExecutionState.RUNNING);
        main.advanceTime(Duration.ofSeconds(2));
        assertThat(taskExecutor.localState().retrieve(job, 9, 0, 3, "chk-3/9-0.state", 1))
                .as("a task of the job runs here again").isPresent();

        taskExecutor.cancelTask(second.attemptId());
        main.triggerAll();
        awaitReport(second.attemptId(), ExecutionState.CANCELED);
        main.advanceTime(TaskExecutor.LOCAL_STATE_IDLE_GRACE);
        // Released on the I/O executor (it deletes files), not on the main thread.
        await("no task of the job for the whole grace: released").atMost(WAIT)
                .until(() -> taskExecutor.localState().retrieve(job, 9, 0, 3, "chk-3/9-0.state", 1).isEmpty());
    }

    @Test
    void aDuplicateSubmissionIsRejectedAndCancelEndsTheTask() {
        TaskDeploymentDescriptor d = descriptor(unbounded(), 1);
        CompletableFuture<Acknowledge> first = taskExecutor.submitTask(d, jobMaster);
        CompletableFuture<Acknowledge> second = taskExecutor.submitTask(d, jobMaster);
        main.triggerAll();

        assertThat(first).isCompleted();
        assertThat(second).isCompletedExceptionally();
        assertThat(second.handle((ok, e) -> e.getCause().getMessage()).join())
                .contains("already running on te-test").contains(d.attemptId().toString());
        awaitReport(d.attemptId(), ExecutionState.RUNNING);
        assertThat(onMain(taskExecutor::numberOfTasks)).isEqualTo(1);

        CompletableFuture<Acknowledge> cancelled = taskExecutor.cancelTask(d.attemptId());
        main.triggerAll();
        assertThat(cancelled).isCompleted();
        awaitReport(d.attemptId(), ExecutionState.CANCELED);

        assertThat(jobMaster.states(d.attemptId())).containsExactly(ExecutionState.RUNNING, ExecutionState.CANCELED);
        assertThat(onMain(taskExecutor::numberOfTasks)).isZero();
    }

    /**
     * A cancel that arrives between a submission and the task's start (the start takes a second
     * main-thread step, after the job's class loader is there) keeps the task from starting, and its
     * job master hears CANCELED. Before, the cancel found no task and was dropped, the task started
     * anyway and ran on, and a job cancelled right after its deployment never ended.
     */
    @Test
    void aCancelBeforeTheTaskStartedKeepsItFromStartingAndReportsCanceled() {
        TaskDeploymentDescriptor d = descriptor(unbounded(), 1);
        CompletableFuture<Acknowledge> ack = taskExecutor.submitTask(d, jobMaster);
        CompletableFuture<Acknowledge> cancelled = taskExecutor.cancelTask(d.attemptId());
        main.triggerAll();

        assertThat(ack).isCompleted();
        assertThat(cancelled).isCompleted();
        awaitReport(d.attemptId(), ExecutionState.CANCELED);
        assertThat(jobMaster.states(d.attemptId())).as("it never ran").containsExactly(ExecutionState.CANCELED);
        assertThat(onMain(taskExecutor::numberOfTasks)).isZero();
    }

    /** cancelAllTasks (the job manager is lost) also covers a task still starting, and completes once it is gone. */
    @Test
    void cancellingAllTasksAlsoStopsATaskThatIsStillStarting() {
        TaskDeploymentDescriptor d = descriptor(unbounded(), 1);
        taskExecutor.submitTask(d, jobMaster);
        CompletableFuture<Void> none = taskExecutor.cancelAllTasks("the job manager is lost");
        main.triggerAll();

        awaitReport(d.attemptId(), ExecutionState.CANCELED);
        main.triggerAll();
        assertThat(none).isCompleted();
        assertThat(jobMaster.states(d.attemptId())).containsExactly(ExecutionState.CANCELED);
    }

    @Test
    void metricsAreAnsweredPerJobAndCommandsForUnknownTasksAreHarmless() {
        TaskDeploymentDescriptor mine = descriptor(unbounded(), 1);
        TaskDeploymentDescriptor other = descriptor(unbounded(), 2);
        taskExecutor.submitTask(mine, jobMaster);
        taskExecutor.submitTask(other, jobMaster);
        main.triggerAll();
        awaitReport(mine.attemptId(), ExecutionState.RUNNING);
        awaitReport(other.attemptId(), ExecutionState.RUNNING);

        List<TaskMetrics> metrics = onMain(() -> taskExecutor.requestTaskMetrics(mine.attemptId().jobId()));
        assertThat(metrics).extracting(TaskMetrics::attemptId).containsExactly(mine.attemptId());

        ExecutionAttemptId unknown = new ExecutionAttemptId(JobId.generate(), 1, 0, 99);
        assertThat(onMain(() -> taskExecutor.cancelTask(unknown))).isEqualTo(Acknowledge.INSTANCE);
        taskExecutor.triggerCheckpoint(unknown, 1, 0);
        taskExecutor.notifyCheckpointComplete(unknown, 1);
        taskExecutor.notifyCheckpointAborted(unknown, 2);
        main.triggerAll();
        assertThat(onMain(taskExecutor::numberOfTasks)).isEqualTo(2);

        // A report of a task that already left the table is not forwarded again.
        CompletableFuture<Void> all = taskExecutor.cancelAll();
        main.triggerAll();
        assertThat(all).isCompleted();
        awaitReport(mine.attemptId(), ExecutionState.CANCELED);
        awaitReport(other.attemptId(), ExecutionState.CANCELED);
        assertThat(jobMaster.states(mine.attemptId())).containsExactly(ExecutionState.RUNNING, ExecutionState.CANCELED);
    }

    /** Issue 22: a job's status asks for its counters; they never wait behind the main thread's other work. */
    @Test
    void metricsAreAnsweredWithoutTheMainThreadWhileAnotherJobsDeploymentWaitsThere() {
        TaskDeploymentDescriptor mine = descriptor(unbounded(), 1);
        taskExecutor.submitTask(mine, jobMaster);
        main.triggerAll();
        awaitReport(mine.attemptId(), ExecutionState.RUNNING);
        TaskDeploymentDescriptor other = descriptor(unbounded(), 2);
        taskExecutor.submitTask(other, jobMaster); // another job's deployment, queued on the un-run main thread
        int queued = main.numQueued();
        assertThat(queued).isPositive();

        CompletableFuture<List<TaskMetrics>> metrics = taskExecutor.requestTaskMetrics(mine.attemptId().jobId());
        assertThat(metrics).as("answered on the calling thread").isCompleted();
        assertThat(metrics.join()).extracting(TaskMetrics::attemptId).containsExactly(mine.attemptId());
        assertThat(taskExecutor.requestTaskMetrics(other.attemptId().jobId()).join()).as("not started yet").isEmpty();
        assertThat(main.numQueued()).as("nothing ran on, or was added to, the main thread").isEqualTo(queued);

        CompletableFuture<Void> all = taskExecutor.cancelAll();
        main.triggerAll();
        awaitReport(mine.attemptId(), ExecutionState.CANCELED);
        awaitReport(other.attemptId(), ExecutionState.CANCELED);
        main.triggerAll();
        assertThat(all).isCompleted();
        assertThat(taskExecutor.requestTaskMetrics(mine.attemptId().jobId()).join()).as("an ended task leaves").isEmpty();
    }

    @Test
    void cancellingAllTasksForALostJobManagerCompletesOnceEveryTaskHasEnded() {
        TaskDeploymentDescriptor a = descriptor(unbounded(), 1);
        TaskDeploymentDescriptor b = descriptor(unbounded(), 2);
        taskExecutor.submitTask(a, jobMaster);
        taskExecutor.submitTask(b, jobMaster);
        main.triggerAll();
        awaitReport(a.attemptId(), ExecutionState.RUNNING);
        awaitReport(b.attemptId(), ExecutionState.RUNNING);

        CompletableFuture<Void> ended = taskExecutor.cancelAllTasks("job manager lost: test");
        main.triggerAll();
        awaitReport(a.attemptId(), ExecutionState.CANCELED);
        awaitReport(b.attemptId(), ExecutionState.CANCELED);

        assertThat(ended).isCompleted();
        assertThat(onMain(taskExecutor::numberOfTasks)).isZero();
        CompletableFuture<Void> none = taskExecutor.cancelAllTasks("again");
        main.triggerAll();
        assertThat(none).as("no task: at once").isCompleted();
    }

    // ------------------------------------------------------------------ helpers

    private JobGraph bounded() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .setCheckpointDir(root.toString());
        env.fromSequence(0, 1_000).map(v -> v + 1).addSink(v -> { });
        return env.buildJobGraph("bounded");
    }

    private JobGraph unbounded() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .setCheckpointDir(root.toString());
        env.fromSequence(0, Long.MAX_VALUE).map(v -> v + 1).addSink(v -> { });
        return env.buildJobGraph("unbounded");
    }

    private static TaskDeploymentDescriptor descriptor(JobGraph graph, int deployment) {
        assertThat(graph.vertices()).as("one chained task").hasSize(1);
        return new TaskDeploymentDescriptor(graph,
                new ExecutionAttemptId(graph.jobId(), graph.vertices().get(0).id(), 0, deployment), 0, null);
    }

    /** Waits (bounded) until the task's report is queued, running the main thread meanwhile. */
    private void awaitReport(ExecutionAttemptId id, ExecutionState state) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
            main.triggerAll();
            return jobMaster.states(id).contains(state);
        });
    }

    private <T> T onMain(Supplier<CompletableFuture<T>> call) {
        CompletableFuture<T> f = call.get();
        main.triggerAll();
        assertThat(f).isCompleted();
        return f.join();
    }
}
