package io.sluice.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CorruptStateFileException;
import io.sluice.checkpoint.InMemoryCheckpointIdCounter;
import io.sluice.checkpoint.StandaloneCompletedCheckpointStore;
import io.sluice.checkpoint.StateRestoreException;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobDetails;
import io.sluice.restart.RestartStrategies;
import io.sluice.state.KeyGroups;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.testutil.ManualExecutor;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task that finds the keyed state of its restore checkpoint unusable (a corrupt state file) makes
 * the job master restart from the previous retained checkpoint — not from the same one again, and
 * without using the restart budget — and, once none is left, wait (not end) with a message naming
 * checkpoint, subtask and file, retrying on a slow backoff until the files are repaired. Driven from the test thread with manual executors and a manual clock.
 */
class JobMasterRestoreFallbackTest {
    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor mainThread =
            new ManuallyTriggeredMainThreadExecutor("jobmaster-fallback-test", clock);
    private final ManualExecutor io = new ManualExecutor();
    private final TestingTaskExecutorGateway taskExecutor = new TestingTaskExecutorGateway("te-1", 2);

    private JobGraph graph;
    private CheckpointStorage storage;
    private StandaloneCompletedCheckpointStore store;
    private JobMaster jobMaster;
    private JobVertex keyed;

    @Test
    void anUnusableRestoreCheckpointFallsBackToThePreviousOneWithoutUsingTheRestartBudget() throws Exception {
        // No restarts allowed at all: the fallback must not count as one.
        createJobMaster(new RestartStrategyConfig.NoRestart());
        addCheckpoint(7);
        addCheckpoint(8);
        start();
        List<ExecutionAttemptId> round = currentRound();
        assertThat(restoredCheckpoints(round)).containsOnly(8L);

        failRestoreAndCancelOthers(round, 8);
        mainThread.triggerAll();
        assertThat(status()).isEqualTo(JobStatus.RESTARTING);
        io.triggerAll();
        mainThread.triggerAll();

        List<ExecutionAttemptId> second = currentRound();
        assertThat(second).doesNotContainAnyElementsOf(round);
        assertThat(restoredCheckpoints(second)).as("restored from the previous checkpoint").containsOnly(7L);
        assertThat(status()).isEqualTo(JobStatus.RUNNING);
        JobDetails details = onMain(jobMaster::currentDetails);
        assertThat(details.failureMessage()).contains("Checkpoint 8 is unusable")
                .contains("subtask 1").contains("chk-8/" + keyed.id() + "-1.state")
                .contains("restoring from checkpoint 7 instead");
        assertThat(details.restarts()).isEqualTo(1);
    }

    @Test
    void whenNoUsableCheckpointRemainsTheJobWaitsNamingCheckpointSubtaskAndFileAndDoesNotEnd() throws Exception {
        createJobMaster(new RestartStrategyConfig.FixedDelay(10, Duration.ofSeconds(1)));
        addCheckpoint(7);
        addCheckpoint(8);
        start();
        exhaustEveryCheckpoint();

        assertThat(status()).as("not ended: graph and checkpoints stay").isEqualTo(JobStatus.RESTARTING);
        assertThat(jobMaster.resultFuture()).isNotDone();
        JobDetails details = onMain(jobMaster::currentDetails);
        assertThat(details.failureMessage()).contains("Waiting: no retained checkpoint")
                .contains("checkpoint 7 is unusable").contains("subtask 1")
                .contains("chk-7/" + keyed.id() + "-1.state").contains("put back an intact copy")
                .contains("resumes by itself").contains("checkpoints.restore-from")
                .containsPattern("again in \\d+(\\.\\d)? s \\(attempt 1\\)");
        assertThat(store.retainedIds()).containsExactly(7L, 8L);
        assertThat(taskExecutor.submitted()).as("two deployments, no third from an unusable checkpoint")
                .hasSize(2 * graph.numberOfSubtasks());

        mainThread.advanceTime(Duration.ofSeconds(4));
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(taskExecutor.submitted()).as("nothing before the slow backoff (5 s, -20 %) is over")
                .hasSize(2 * graph.numberOfSubtasks());
    }

    @Test
    void whileWaitingItRetriesTheNewestCheckpointOnASlowBackoffAndResumesOnceTheFilesAreRepaired() throws Exception {
        createJobMaster(new RestartStrategyConfig.NoRestart());
        addCheckpoint(7);
        addCheckpoint(8);
        start();
        exhaustEveryCheckpoint();

        mainThread.advanceTime(Duration.ofSeconds(6)); // at most 5 s + 20 %
        io.triggerAll(); // the store forgets the unusable marks and reads checkpoint 8 again
        mainThread.triggerAll();
        List<ExecutionAttemptId> retry = currentRound();
        assertThat(restoredCheckpoints(retry)).as("the newest retained checkpoint again").containsOnly(8L);
        assertThat(status()).isEqualTo(JobStatus.RUNNING);

        // Still corrupt: the fallback chain runs again and the job waits longer (10 s, +/-20 %).
        failRestoreAndCancelOthers(retry, 8);
        io.triggerAll();
        mainThread.triggerAll();
        failRestoreAndCancelOthers(currentRound(), 7);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(status()).isEqualTo(JobStatus.RESTARTING);
        assertThat(onMain(jobMaster::currentDetails).failureMessage()).contains("(attempt 2)");
        int before = taskExecutor.submitted().size();
        mainThread.advanceTime(Duration.ofSeconds(7));
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(taskExecutor.submitted()).as("the second wait is longer").hasSize(before);

        // Repaired meanwhile: this time every task restores and runs.
        mainThread.advanceTime(Duration.ofSeconds(6));
        io.triggerAll();
        mainThread.triggerAll();
        List<ExecutionAttemptId> repaired = currentRound();
        assertThat(restoredCheckpoints(repaired)).containsOnly(8L);
        for (ExecutionAttemptId id : repaired) {
            jobMaster.updateTaskExecutionState(new TaskExecutionState(id, ExecutionState.RUNNING, null));
        }
        mainThread.triggerAll();
        assertThat(status()).isEqualTo(JobStatus.RUNNING);
        assertThat(onMain(jobMaster::currentDetails).failureMessage())
                .contains("Retrying checkpoint 8 after waiting for repaired state files");
        assertThat(jobMaster.resultFuture()).isNotDone();
    }

    @Test
    void aJobWaitingForRepairedStateCanBeCancelled() throws Exception {
        createJobMaster(new RestartStrategyConfig.NoRestart());
        addCheckpoint(7);
        addCheckpoint(8);
        start();
        exhaustEveryCheckpoint();

        jobMaster.cancel();
        mainThread.triggerAll();
        assertThat(status()).isEqualTo(JobStatus.CANCELED);
        assertThat(jobMaster.resultFuture().getNow(null).status()).isEqualTo(JobStatus.CANCELED);
        int before = taskExecutor.submitted().size();
        mainThread.advanceTime(Duration.ofMinutes(2));
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(taskExecutor.submitted()).as("no retry after the cancel").hasSize(before);
    }

    /** Checkpoint 8, then 7, turn out unusable: no usable checkpoint is left. */
    private void exhaustEveryCheckpoint() {
        failRestoreAndCancelOthers(currentRound(), 8);
        io.triggerAll();
        mainThread.triggerAll();
        failRestoreAndCancelOthers(currentRound(), 7);
        io.triggerAll();
        mainThread.triggerAll();
    }

    @Test
    void withStartWithoutCheckpointAllowedTheJobStartsEmptyWhenNoUsableCheckpointRemains() throws Exception {
        createJobMaster(new RestartStrategyConfig.NoRestart(), true);
        addCheckpoint(8);
        start();
        failRestoreAndCancelOthers(currentRound(), 8);
        io.triggerAll();
        mainThread.triggerAll();

        assertThat(status()).isEqualTo(JobStatus.RUNNING);
        assertThat(restoredCheckpoints(currentRound())).containsOnly(-1L);
        assertThat(onMain(jobMaster::currentDetails).failureMessage()).contains("Checkpoint 8 is unusable")
                .contains("starts from empty state because allowStartWithoutCheckpoint is set");
    }

    @Test
    void aStateRestoreFailureOfAnotherCheckpointIsAnOrdinaryFailure() throws Exception {
        createJobMaster(new RestartStrategyConfig.NoRestart());
        addCheckpoint(7);
        addCheckpoint(8);
        start();
        List<ExecutionAttemptId> round = currentRound();
        ExecutionAttemptId failing = keyedAttempt(round, 1);
        fail(failing, unusable(7, 1)); // not what this deployment restores from: no fallback
        assertThat(status()).isIn(JobStatus.FAILING, JobStatus.FAILED);
    }

    private void failRestoreAndCancelOthers(List<ExecutionAttemptId> round, long checkpointId) {
        ExecutionAttemptId failing = keyedAttempt(round, 1);
        fail(failing, unusable(checkpointId, 1));
        for (ExecutionAttemptId id : round) {
            if (!id.equals(failing)) {
                jobMaster.updateTaskExecutionState(new TaskExecutionState(id, ExecutionState.CANCELED, null));
            }
        }
        mainThread.triggerAll();
        mainThread.advanceTime(Duration.ofSeconds(1));
    }

    private StateRestoreException unusable(long checkpointId, int subtask) {
        String file = storage.metadataPath(graph.jobId(), checkpointId).replace("_metadata", keyed.id() + "-" + subtask + ".state");
        return new StateRestoreException("count (" + (subtask + 1) + "/2)", checkpointId, keyed.id(), subtask, file,
                new CorruptStateFileException(file, "checksum mismatch"));
    }

    private ExecutionAttemptId keyedAttempt(List<ExecutionAttemptId> round, int subtask) {
        return round.stream().filter(id -> id.vertexId() == keyed.id() && id.subtaskIndex() == subtask)
                .findFirst().orElseThrow();
    }

    private List<Long> restoredCheckpoints(List<ExecutionAttemptId> round) {
        List<Long> ids = new ArrayList<>();
        for (TaskDeploymentDescriptor d : taskExecutor.submitted()) {
            if (round.contains(d.attemptId())) {
                ids.add(d.restore() == null ? -1 : d.restore().checkpointId());
            }
        }
        return ids;
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

    private void createJobMaster(RestartStrategyConfig restart) {
        createJobMaster(restart, false);
    }

    private void createJobMaster(RestartStrategyConfig restart, boolean startWithoutCheckpointAllowed) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .setRestartStrategy(restart).setCheckpointDir(root.toString())
                .setStartWithoutCheckpointAllowed(startWithoutCheckpointAllowed);
        env.fromSequence(0, 100).keyBy(v -> v % 4).map(v -> v).name("count").addSink(v -> { });
        graph = env.buildJobGraph("restore-fallback-test");
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
    }

    private void start() {
        mainThread.execute(jobMaster::start);
        mainThread.triggerAll();
    }

    private JobStatus status() {
        return onMain(jobMaster::status);
    }

    private <T> T onMain(Supplier<T> fn) {
        AtomicReference<T> result = new AtomicReference<>();
        mainThread.execute(() -> result.set(fn.get()));
        mainThread.triggerAll();
        return result.get();
    }

    private List<ExecutionAttemptId> currentRound() {
        List<ExecutionAttemptId> ids = taskExecutor.submittedIds();
        return List.copyOf(ids.subList(ids.size() - graph.numberOfSubtasks(), ids.size()));
    }

    private void fail(ExecutionAttemptId id, Throwable cause) {
        jobMaster.updateTaskExecutionState(new TaskExecutionState(id, ExecutionState.FAILED, cause));
        mainThread.triggerAll();
    }
}
