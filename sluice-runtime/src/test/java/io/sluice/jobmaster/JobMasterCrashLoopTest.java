package io.sluice.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.InMemoryCheckpointIdCounter;
import io.sluice.checkpoint.KeyedStateRestoreException;
import io.sluice.checkpoint.StandaloneCompletedCheckpointStore;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobHealth;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.restart.CrashLoop;
import io.sluice.restart.CrashLoopDetector;
import io.sluice.restart.RestartStrategies;
import io.sluice.state.KeyGroups;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.testutil.ManualExecutor;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job master in a crash loop, on a manual clock and manually triggered executors: the same
 * failure on consecutive attempts shows in its details and health with its count and first time; a
 * restore that fails the same deterministic way from the same checkpoint is classified as one that
 * can never succeed and retried only every {@link CrashLoopDetector#SLOW_RETRY}, keeping every
 * checkpoint; a processing failure keeps the restart strategy's pace. And a job whose latest
 * checkpoint is older than {@code checkpoints.stale-after} is marked stale.
 */
class JobMasterCrashLoopTest {
    private static final long T0 = 1_780_000_000_000L;

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock(T0);
    private final ManuallyTriggeredMainThreadExecutor mainThread =
            new ManuallyTriggeredMainThreadExecutor("jobmaster-crash-loop-test", clock);
    private final ManualExecutor io = new ManualExecutor();
    private final TestingTaskExecutorGateway taskExecutor = new TestingTaskExecutorGateway("te-1", 2);

    private JobGraph graph;
    private CheckpointStorage storage;
    private StandaloneCompletedCheckpointStore store;
    private JobMaster jobMaster;
    private JobMasterDriver driver;
    private JobVertex keyed;

    @Test
    void aRestoreFailingTheSameWayFromTheSameCheckpointCanNeverSucceedAndIsRetriedOnlySlowly() throws Exception {
        create(StreamExecutionEnvironment.create());
        addCheckpoint(8);
        start();
        for (int attempt = 0; attempt < 3; attempt++) {
            failRestoreOfSubtask1(currentRound());
            assertThat(driver.status()).isEqualTo(JobStatus.RESTARTING);
            if (attempt < 2) {
                int deployed = taskExecutor.submitted().size();
                mainThread.advanceTime(Duration.ofSeconds(1)); // the fixed delay
                assertThat(taskExecutor.submitted()).as("restarted after the fixed 1 s")
                        .hasSize(deployed + graph.numberOfSubtasks());
            }
        }

        CrashLoop loop = driver.details().health().crashLoop();
        assertThat(loop).isNotNull();
        assertThat(loop.count()).isEqualTo(3);
        assertThat(loop.sinceMillis()).isEqualTo(T0);
        assertThat(loop.kind()).isEqualTo(CrashLoop.Kind.RESTORE_NEVER_SUCCEEDS);
        assertThat(loop.restoreCheckpointId()).isEqualTo(8);
        assertThat(loop.cause()).contains("belongs to key group 124");
        assertThat(loop.origin()).contains("vertex 'count");
        assertThat(loop.summary()).startsWith("crash loop: the same error 3 times since ")
                .contains("restore from checkpoint 8 can never succeed");
        assertThat(loop.advice()).contains("--restore-from latest:" + graph.jobId().value());
        assertThat(jobMaster.health().crashLoop()).as("the same from any thread").isEqualTo(loop);

        int deployed = taskExecutor.submitted().size();
        mainThread.advanceTime(CrashLoopDetector.SLOW_RETRY.minusSeconds(1));
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(taskExecutor.submitted()).as("no restart before the slow pace").hasSize(deployed);
        mainThread.advanceTime(Duration.ofSeconds(1));
        assertThat(taskExecutor.submitted()).as("then one more attempt").hasSize(deployed + graph.numberOfSubtasks());
        assertThat(store.retainedIds()).as("no checkpoint is discarded because of it").containsExactly(8L);
        assertThat(jobMaster.resultFuture()).isNotDone();
    }

    @Test
    void aRestoreFailureThatArrivedFromAnotherProcessAsASerializedThrowableIsClassifiedToo() throws Exception {
        create(StreamExecutionEnvironment.create());
        addCheckpoint(8);
        start();
        for (int attempt = 0; attempt < 3; attempt++) {
            List<ExecutionAttemptId> round = currentRound();
            ExecutionAttemptId failing = keyedAttempt(round, 0);
            // A task manager's KeyedStateRestoreException that this process could not recreate.
            var ctor = io.sluice.rpc.remote.SerializedThrowable.class.getDeclaredConstructor(String.class, String.class,
                    Throwable.class);
            ctor.setAccessible(true);
            Throwable remote = ctor.newInstance(KeyedStateRestoreException.class.getName(),
                    "Task count (1/2) failed to restore its keyed state from checkpoint 8: bad format",
                    new IllegalStateException("bad format"));
            driver.report(failing, ExecutionState.FAILED, remote);
            cancelOthers(round, failing);
            mainThread.advanceTime(Duration.ofSeconds(1));
        }
        CrashLoop loop = driver.details().health().crashLoop();
        assertThat(loop.kind()).isEqualTo(CrashLoop.Kind.RESTORE_NEVER_SUCCEEDS);
        assertThat(loop.restoreCheckpointId()).as("the checkpoint the task was restoring from").isEqualTo(8);
    }

    @Test
    void aProcessingFailureTheSameWayEveryTimeIsACrashLoopAtTheStrategysPace() {
        create(StreamExecutionEnvironment.create());
        start();
        for (int attempt = 1; attempt <= 4; attempt++) {
            List<ExecutionAttemptId> round = currentRound();
            for (ExecutionAttemptId id : round) {
                driver.report(id, ExecutionState.RUNNING, null);
            }
            ExecutionAttemptId failing = keyedAttempt(round, 0);
            driver.report(failing, ExecutionState.FAILED,
                    new IllegalStateException("attempt " + attempt + ": bad record 17"));
            cancelOthers(round, failing);
            if (attempt == 2) {
                assertThat(driver.details().health().crashLoop()).as("twice is not a loop yet").isNull();
            }
            int deployed = taskExecutor.submitted().size();
            mainThread.advanceTime(Duration.ofSeconds(1));
            assertThat(taskExecutor.submitted()).as("restarted after the fixed 1 s").hasSize(deployed + graph.numberOfSubtasks());
        }
        CrashLoop loop = driver.details().health().crashLoop();
        assertThat(loop.count()).isEqualTo(4);
        assertThat(loop.kind()).isEqualTo(CrashLoop.Kind.PROCESSING);
        assertThat(loop.cause()).isEqualTo("java.lang.IllegalStateException: attempt 4: bad record 17");
        assertThat(loop.sinceMillis()).isEqualTo(T0);
    }

    @Test
    void aJobWhoseLatestCheckpointIsOlderThanTheThresholdIsMarkedStale() {
        create(StreamExecutionEnvironment.create().enableCheckpointing(Duration.ofSeconds(1))
                .setCheckpointStaleAfter(Duration.ofSeconds(10)));
        start();
        for (ExecutionAttemptId id : currentRound()) {
            driver.report(id, ExecutionState.RUNNING, null);
        }
        mainThread.advanceTime(Duration.ofSeconds(10));
        assertThat(driver.details().health()).as("10 s: not older than the threshold yet")
                .isEqualTo(new JobHealth(null, -1, 10_000));
        assertThat(jobMaster.checkpointAgeMillis()).isEqualTo(10_000);

        mainThread.advanceTime(Duration.ofSeconds(1)); // no task acknowledges: no checkpoint completes
        JobHealth health = driver.details().health();
        assertThat(health.checkpointsStale()).isTrue();
        assertThat(health.noCheckpointSinceMillis()).as("none completed: since the job master started").isEqualTo(T0);
        assertThat(health.staleSummary()).isEqualTo("no checkpoint since " + java.time.Instant.ofEpochMilli(T0));
        assertThat(health.marks()).containsExactly(health.staleSummary());
        assertThat(jobMaster.health()).isEqualTo(health);
    }

    private void failRestoreOfSubtask1(List<ExecutionAttemptId> round) {
        ExecutionAttemptId failing = keyedAttempt(round, 1);
        driver.report(failing, ExecutionState.FAILED, new KeyedStateRestoreException("count (2/2)", 8,
                new IllegalStateException("Keyed-state snapshot #0: key k1 of state 'n' was written in key group 4 but"
                        + " belongs to key group 124 here")));
        cancelOthers(round, failing);
    }

    private void cancelOthers(List<ExecutionAttemptId> round, ExecutionAttemptId failing) {
        for (ExecutionAttemptId id : round) {
            if (!id.equals(failing)) {
                jobMaster.updateTaskExecutionState(new TaskExecutionState(id, ExecutionState.CANCELED, null));
            }
        }
        mainThread.triggerAll();
    }

    private ExecutionAttemptId keyedAttempt(List<ExecutionAttemptId> round, int subtask) {
        return round.stream().filter(id -> id.vertexId() == keyed.id() && id.subtaskIndex() == subtask)
                .findFirst().orElseThrow();
    }

    /** The attempts of the latest deployment. */
    private List<ExecutionAttemptId> currentRound() {
        List<TaskDeploymentDescriptor> all = taskExecutor.submitted();
        List<ExecutionAttemptId> round = new ArrayList<>();
        for (TaskDeploymentDescriptor d : all.subList(all.size() - graph.numberOfSubtasks(), all.size())) {
            round.add(d.attemptId());
        }
        return round;
    }

    private void addCheckpoint(long id) throws Exception {
        List<TaskStateHandle> handles = new ArrayList<>();
        for (int i = 0; i < keyed.parallelism(); i++) {
            byte[] data = {1, 2, (byte) i};
            String file = storage.writeTaskState(graph.jobId(), id, keyed.id(), i, data);
            handles.add(new TaskStateHandle(keyed.id(), i, file, data.length, null,
                    KeyGroups.rangeForSubtask(i, keyed.maxParallelism(), keyed.parallelism())));
        }
        store.addCheckpoint(new CompletedCheckpoint(graph.jobId(), id, 0, 0, handles, storage.metadataPath(graph.jobId(), id)));
    }

    private void create(StreamExecutionEnvironment env) {
        RestartStrategyConfig restart = new RestartStrategyConfig.FixedDelay(100, Duration.ofSeconds(1));
        env.setParallelism(2).setRestartStrategy(restart).setCheckpointDir(root.toString());
        env.fromSequence(0, 100).keyBy(v -> v % 4).map(v -> v).name("count").addSink(v -> { });
        graph = env.buildJobGraph("crash-loop-test");
        keyed = graph.vertices().stream().filter(JobVertex::hasKeyedState).findFirst().orElseThrow();
        storage = new CheckpointStorage(new LocalFileBlobStore(root), new SimpleMeterRegistry());
        store = new StandaloneCompletedCheckpointStore(graph.jobId(), graph.config().retainedCheckpoints(), storage);
        List<io.sluice.protocol.TaskExecutorGateway> slots = new ArrayList<>();
        for (int i = 0; i < graph.requiredSlots(); i++) {
            slots.add(taskExecutor);
        }
        JobMasterServices services = new JobMasterServices(storage, store, new InMemoryCheckpointIdCounter(1),
                (jobId, deployment) -> { }, slots, io, clock, RestartStrategies.create(restart, clock, new Random(7)),
                () -> true);
        jobMaster = new JobMaster(graph, services, mainThread);
        driver = new JobMasterDriver(jobMaster, mainThread);
    }

    private void start() {
        mainThread.execute(jobMaster::start);
        mainThread.triggerAll();
    }
}
