package io.sluice.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.InMemoryCheckpointIdCounter;
import io.sluice.checkpoint.StandaloneCompletedCheckpointStore;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobDetails;
import io.sluice.slots.SlotPool;
import io.sluice.config.RestartStrategyConfig.FixedDelay;
import io.sluice.graph.JobGraph;
import io.sluice.restart.RestartStrategies;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.testutil.ManualExecutor;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job master on a dynamic slot pool (cluster mode): it waits for slots without failing and says
 * for what, fails over when a task executor with its tasks is lost, and waits for new slots after
 * that without using up its restart budget.
 */
class JobMasterDynamicSlotsTest {
    private static final Duration DELAY = Duration.ofSeconds(2);

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor mainThread = new ManuallyTriggeredMainThreadExecutor("jobmaster", clock);
    private final SlotPool pool = SlotPool.dynamic();
    private final TestingTaskExecutorGateway tm1 = new TestingTaskExecutorGateway("tm-1", 1);
    private final TestingTaskExecutorGateway tm2 = new TestingTaskExecutorGateway("tm-2", 1);
    private final TestingTaskExecutorGateway tm3 = new TestingTaskExecutorGateway("tm-3", 1);
    private JobGraph graph;
    private JobMaster jobMaster;

    @BeforeEach
    void createJobMaster() {
        // One restart allowed: waiting for slots must not use it up, only the loss itself.
        FixedDelay restart = new FixedDelay(1, DELAY);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .setRestartStrategy(restart).setCheckpointDir(root.toString());
        env.fromSequence(0, 100).keyBy(v -> v % 4).map(v -> v).addSink(v -> { });
        graph = env.buildJobGraph("dynamic-slots");
        CheckpointStorage storage = new CheckpointStorage(new LocalFileBlobStore(root), new SimpleMeterRegistry());
        JobMasterServices services = new JobMasterServices(storage,
                new StandaloneCompletedCheckpointStore(graph.jobId(), 3, storage), new InMemoryCheckpointIdCounter(1),
                (jobId, deployment) -> { }, List.of(), new ManualExecutor(), clock,
                RestartStrategies.create(restart, clock, new Random(7)), () -> true, pool);
        jobMaster = new JobMaster(graph, services, mainThread);
    }

    @Test
    void waitsInCreatedSayingForWhatUntilEnoughSlotsRegister() {
        pool.addTaskExecutor(tm1, "i-1", "unused");
        mainThread.execute(jobMaster::start);
        mainThread.triggerAll();

        assertThat(status()).isEqualTo(JobStatus.CREATED);
        assertThat(details().recovery().phase()).isEqualTo("waiting for 2 slots; 1 free on 1 task manager");
        assertThat(tm1.submitted()).isEmpty();
        mainThread.advanceTime(Duration.ofMinutes(10));
        assertThat(status()).as("waiting does not time out").isEqualTo(JobStatus.CREATED);

        pool.addTaskExecutor(tm2, "i-2", "unused");
        mainThread.triggerAll();

        assertThat(status()).isEqualTo(JobStatus.RUNNING);
        assertThat(details().recovery()).isNull();
        assertThat(tm1.submitted()).hasSize(graph.numberOfSubtasks() / 2);
        assertThat(tm2.submitted()).hasSize(graph.numberOfSubtasks() / 2);
        assertThat(details().restarts()).isZero();
    }

    @Test
    void aLostTaskExecutorFailsTheJobOverAndTheRestartWaitsForNewSlotsWithoutUsingTheBudget() {
        pool.addTaskExecutor(tm1, "i-1", "unused");
        pool.addTaskExecutor(tm2, "i-2", "unused");
        mainThread.execute(jobMaster::start);
        mainThread.triggerAll();
        for (ExecutionAttemptId id : all()) {
            report(id, ExecutionState.RUNNING);
        }

        pool.removeTaskExecutor("tm-2", "task manager tm-2 lost: no heartbeat for 6 s");
        mainThread.triggerAll();

        assertThat(status()).isEqualTo(JobStatus.RESTARTING);
        JobDetails d = details();
        assertThat(d.recentFailures()).singleElement().satisfies(f -> {
            assertThat(f.cause()).endsWith("TaskExecutorLostException: task manager tm-2 lost: no heartbeat for 6 s");
            assertThat(f.restarted()).isTrue();
        });
        assertThat(tm2.cancelled()).as("nothing is sent to a lost task executor").isEmpty();
        assertThat(tm1.cancelled()).hasSize(graph.numberOfSubtasks() / 2);
        for (ExecutionAttemptId id : tm1.cancelled()) {
            report(id, ExecutionState.CANCELED);
        }
        mainThread.advanceTime(DELAY);

        assertThat(status()).isEqualTo(JobStatus.RESTARTING);
        assertThat(details().recovery().phase()).isEqualTo("waiting for 2 slots; 1 free on 1 task manager");
        mainThread.advanceTime(Duration.ofHours(1));
        assertThat(status()).as("an hour of waiting is no crash loop: the one restart is not used up")
                .isEqualTo(JobStatus.RESTARTING);
        int submittedBefore = tm1.submitted().size();

        pool.addTaskExecutor(tm3, "i-3", "unused");
        mainThread.triggerAll();

        assertThat(status()).isEqualTo(JobStatus.RUNNING);
        assertThat(tm1.submitted()).hasSize(submittedBefore + graph.numberOfSubtasks() / 2);
        assertThat(tm3.submitted()).hasSize(graph.numberOfSubtasks() / 2);
        assertThat(details().recovery()).isNull();
        assertThat(details().restarts()).isEqualTo(1);
    }

    /**
     * Task-local copies are kept per subtask on the task executor that ran it. When the first of two task executors
     * is lost, the pool hands the job its slot on the survivor first; before 2026-12-07 that slot then ran subtask 0
     * instead of subtask 1, so the survivor's local copies (of subtask 1) were never found.
     */
    @Test
    void aTaskExecutorThatSurvivesALossRunsTheSameSubtasksAgainSoTheirLocalCopiesAreFound() {
        pool.addTaskExecutor(tm1, "i-1", "unused");
        pool.addTaskExecutor(tm2, "i-2", "unused");
        mainThread.execute(jobMaster::start);
        mainThread.triggerAll();
        for (ExecutionAttemptId id : all()) {
            report(id, ExecutionState.RUNNING);
        }
        assertThat(tm1.submitted()).allSatisfy(d -> assertThat(d.subtaskIndex()).isZero());
        assertThat(tm2.submitted()).allSatisfy(d -> assertThat(d.subtaskIndex()).isEqualTo(1));
        int before = tm2.submitted().size();

        pool.removeTaskExecutor("tm-1", "task manager tm-1 lost: no heartbeat for 6 s");
        pool.addTaskExecutor(tm3, "i-3", "unused");
        mainThread.triggerAll();
        for (ExecutionAttemptId id : tm2.cancelled()) {
            report(id, ExecutionState.CANCELED);
        }
        mainThread.advanceTime(DELAY);

        assertThat(status()).isEqualTo(JobStatus.RUNNING);
        assertThat(tm2.submitted().subList(before, tm2.submitted().size())).as("the survivor's subtasks")
                .isNotEmpty().allSatisfy(d -> assertThat(d.subtaskIndex()).isEqualTo(1));
        assertThat(tm3.submitted()).as("the lost one's subtasks, on the new task executor").isNotEmpty()
                .allSatisfy(d -> assertThat(d.subtaskIndex()).isZero());
    }

    @Test
    void aTaskCancelledByItsTaskExecutorWithoutBeingAskedIsAFailure() {
        pool.addTaskExecutor(tm1, "i-1", "unused");
        pool.addTaskExecutor(tm2, "i-2", "unused");
        mainThread.execute(jobMaster::start);
        mainThread.triggerAll();
        List<ExecutionAttemptId> round = all();
        for (ExecutionAttemptId id : round) {
            report(id, ExecutionState.RUNNING);
        }

        report(tm2.submittedIds().get(0), ExecutionState.CANCELED);

        assertThat(status()).isEqualTo(JobStatus.RESTARTING);
        assertThat(details().recentFailures()).singleElement().satisfies(f ->
                assertThat(f.cause()).contains("was cancelled by task executor tm-2 without the job master asking"));
    }

    @Test
    void aJobBeingCancelledWhoseTasksSitOnADeadTaskExecutorEndsOnceThatOneCountsAsLost() {
        pool.addTaskExecutor(tm1, "i-1", "unused");
        pool.addTaskExecutor(tm2, "i-2", "unused");
        mainThread.execute(jobMaster::start);
        mainThread.triggerAll();
        for (ExecutionAttemptId id : all()) {
            report(id, ExecutionState.RUNNING);
        }

        jobMaster.cancel();
        mainThread.triggerAll();
        for (ExecutionAttemptId id : tm1.cancelled()) {
            report(id, ExecutionState.CANCELED);
        }
        // tm-2 is dead: its tasks never report CANCELED.
        assertThat(status()).isEqualTo(JobStatus.CANCELLING);
        assertThat(jobMaster.resultFuture()).isNotDone();

        pool.removeTaskExecutor("tm-2", "task manager tm-2 lost: no heartbeat for 6 s");
        mainThread.triggerAll();

        assertThat(status()).isEqualTo(JobStatus.CANCELED);
        assertThat(jobMaster.resultFuture()).isCompleted();
        assertThat(details().recentFailures()).as("a loss while cancelling is no task failure").isEmpty();
    }

    @Test
    void aSuspendedJobMasterWhoseTasksSitOnALostTaskExecutorEndsOnceThatOneCountsAsLost() {
        pool.addTaskExecutor(tm1, "i-1", "unused");
        pool.addTaskExecutor(tm2, "i-2", "unused");
        mainThread.execute(jobMaster::start);
        mainThread.triggerAll();
        for (ExecutionAttemptId id : all()) {
            report(id, ExecutionState.RUNNING);
        }

        mainThread.execute(() -> jobMaster.suspend("leadership lost"));
        mainThread.triggerAll();
        for (ExecutionAttemptId id : tm1.cancelled()) {
            report(id, ExecutionState.CANCELED);
        }
        // tm-2 is dead: its tasks never report CANCELED.
        assertThat(status()).isEqualTo(JobStatus.SUSPENDED);
        assertThat(jobMaster.resultFuture()).as("a suspended job master waits for its tasks").isNotDone();

        pool.removeTaskExecutor("tm-2", "task manager tm-2 lost: no heartbeat for 6 s");
        mainThread.triggerAll();

        assertThat(jobMaster.resultFuture()).isCompleted();
        assertThat(jobMaster.resultFuture().join().status()).isEqualTo(JobStatus.SUSPENDED);
        assertThat(status()).isEqualTo(JobStatus.SUSPENDED);
        assertThat(details().recentFailures()).as("a loss while suspended is no task failure").isEmpty();
    }

    private List<ExecutionAttemptId> all() {
        List<ExecutionAttemptId> ids = new java.util.ArrayList<>(tm1.submittedIds());
        ids.addAll(tm2.submittedIds());
        return ids;
    }

    private void report(ExecutionAttemptId id, ExecutionState state) {
        driver().report(id, state, null);
    }

    private JobStatus status() {
        return driver().status();
    }

    private JobDetails details() {
        return driver().details();
    }

    private JobMasterDriver driver() {
        return new JobMasterDriver(jobMaster, mainThread);
    }
}
