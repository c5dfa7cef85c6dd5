package io.sluice.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.slots.SlotPool;
import io.sluice.config.RestartStrategyConfig.NoRestart;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.testutil.ManualExecutorService;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingHaServices;
import io.sluice.testutil.TestingLeaderElection;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Dispatcher's leadership and job lifecycle, step by step: its main thread and the job
 * masters' are manually triggered on a {@link ManualClock}, the I/O executor is manual, elections
 * are granted and revoked by the test, and tasks are reported by the test.
 */
@Timeout(30)
class DispatcherTest {
    private static final String CONTENDER = "jm-test";
    private static final RecoveryBackoff BACKOFF = new RecoveryBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0);

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor main = new ManuallyTriggeredMainThreadExecutor("dispatcher-test", clock);
    private final List<ManuallyTriggeredMainThreadExecutor> jobMasterThreads = new CopyOnWriteArrayList<>();
    private final ManualExecutorService io = new ManualExecutorService();
    private final TestingTaskExecutorGateway taskExecutor = new TestingTaskExecutorGateway("te-1", 4);
    private final TestingHaServices ha = new TestingHaServices();
    private CheckpointStorageRegistry storages;
    private Dispatcher dispatcher;
    private JobGraph graph;

    @BeforeEach
    void setUp() {
        storages = new CheckpointStorageRegistry(new SimpleMeterRegistry());
        JobManagerServices services = new JobManagerServices(ha, storages, new SlotPool(List.of(taskExecutor)),
                (jobId, deployment) -> { }, io, clock, new Random(1), BACKOFF, CONTENDER,
                RecoveryBackoff.UNUSABLE_CHECKPOINTS, name -> {
                    ManuallyTriggeredMainThreadExecutor t = new ManuallyTriggeredMainThreadExecutor(name, clock);
                    jobMasterThreads.add(t);
                    return t;
                });
        dispatcher = new Dispatcher(services, main);
        dispatcher.start();
        runAll();
        ha.setDispatcherLeader(CONTENDER);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .setRestartStrategy(new NoRestart()).setCheckpointDir(root.toString());
        env.fromSequence(0, 100).keyBy(v -> v % 4).map(v -> v).addSink(v -> { });
        graph = env.buildJobGraph("dispatcher-test");
    }

    @AfterEach
    void tearDown() {
        storages.close();
    }

    @Test
    void aDispatcherReGrantStartsTheJobsNewRunnerOnlyAfterTheOldRunnersTasksEnded() {
        dispatcherElection().grant();
        runAll();
        CompletableFuture<JobId> submitted = dispatcher.submitJob(graph);
        runAll();
        assertThat(submitted).isCompletedWithValue(graph.jobId());
        assertThat(ha.jobElections(graph.jobId(), CONTENDER)).hasSize(1);
        jobElection().grant();
        runAll();
        List<ExecutionAttemptId> first = List.copyOf(taskExecutor.submittedIds());
        assertThat(first).hasSize(graph.numberOfSubtasks());
        reportAll(first, ExecutionState.RUNNING);

        // Dispatcher leadership lost and regained at once (embedded revoke + grant, ZooKeeper reconnect).
        dispatcherElection().revoke();
        dispatcherElection().grant();
        runAll();

        assertThat(taskExecutor.cancelled()).containsExactlyInAnyOrderElementsOf(first);
        assertThat(ha.jobElections(graph.jobId(), CONTENDER))
                .as("the new runner does not join the job's election while the old tasks run").hasSize(1);
        assertThat(jobStatus()).as("known, and recovering").isEqualTo(JobStatus.INITIALIZING);

        reportAll(first, ExecutionState.CANCELED);

        assertThat(ha.jobElections(graph.jobId(), CONTENDER)).hasSize(2);
        assertThat(ha.jobElections(graph.jobId(), CONTENDER).get(0).isClosed()).isTrue();
        jobElection().grant();
        runAll();
        assertThat(taskExecutor.submitted()).hasSize(2 * first.size());
        reportAll(taskExecutor.submittedIds().subList(first.size(), 2 * first.size()), ExecutionState.RUNNING);
        assertThat(jobStatus()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void cancelWhileInitializingAnswersTheResultOnlyOnceItIsDurable() {
        dispatcherElection().grant();
        runAll();
        dispatcher.submitJob(graph);
        runAll();
        jobElection().grant();
        main.triggerAll(); // recovery queued on the I/O executor, not run
        ha.failResultWrites(2);

        CompletableFuture<JobResult> result = dispatcher.requestJobResult(graph.jobId());
        CompletableFuture<?> cancelled = dispatcher.cancelJob(graph.jobId());
        runAll();

        assertThat(cancelled).isCompleted();
        assertThat(jobMasterThreads).isEmpty();
        assertThat(jobStatus()).isEqualTo(JobStatus.CANCELED);
        assertThat(result).as("the result store failed: not answered yet").isNotDone();
        assertThat(ha.storedGraphs()).containsKey(graph.jobId());

        main.advanceTime(Duration.ofMillis(100));
        runAll();
        main.advanceTime(Duration.ofMillis(200));
        runAll();

        assertThat(result).isCompleted();
        assertThat(result.join().status()).isEqualTo(JobStatus.CANCELED);
        assertThat(ha.resultWriteAttempts()).isEqualTo(3);
        assertThat(ha.storedGraphs()).doesNotContainKey(graph.jobId());
        assertThat(jobMasterThreads).as("never started, whatever was queued").isEmpty();
        CompletableFuture<JobId> again = dispatcher.submitJob(graph);
        runAll();
        assertThat(again).isCompletedExceptionally();
    }

    // ------------------------------------------------------------------ helpers

    private TestingLeaderElection dispatcherElection() {
        return ha.dispatcherElection(CONTENDER);
    }

    private TestingLeaderElection jobElection() {
        return ha.jobElection(graph.jobId(), CONTENDER);
    }

    private JobStatus jobStatus() {
        CompletableFuture<JobDetails> details = dispatcher.requestJobDetails(graph.jobId());
        runAll();
        assertThat(details).isCompleted();
        return details.join().status();
    }

    private void reportAll(List<ExecutionAttemptId> ids, ExecutionState state) {
        for (ExecutionAttemptId id : ids) {
            taskExecutor.jobMasterOf(id).updateTaskExecutionState(new TaskExecutionState(id, state, null));
            runAll();
        }
    }

    private void runAll() {
        int ran;
        do {
            ran = main.triggerAll() + io.triggerAll();
            for (ManuallyTriggeredMainThreadExecutor t : new ArrayList<>(jobMasterThreads)) {
                ran += t.triggerAll();
            }
        } while (ran > 0);
    }
}
