package io.sluice.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.errors.NullKeyException;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.InMemoryCheckpointIdCounter;
import io.sluice.checkpoint.StandaloneCompletedCheckpointStore;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.config.RestartStrategyConfig.ExponentialDelay;
import io.sluice.config.RestartStrategyConfig.FailureRate;
import io.sluice.config.RestartStrategyConfig.FixedDelay;
import io.sluice.config.RestartStrategyConfig.NoRestart;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.FailureEvent;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.protocol.SubtaskStatus;
import io.sluice.protocol.VertexStatus;
import io.sluice.restart.RestartHistory;
import io.sluice.restart.RestartStrategies;
import io.sluice.rpc.Acknowledge;
import io.sluice.state.KeyGroups;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.protocol.TaskRestore;
import io.sluice.testutil.ManualExecutor;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job master's lifecycle, restarts, restore and cancellation, driven entirely from the test
 * thread: a manually triggered main thread on a {@link ManualClock}, a manual I/O executor, and a
 * task executor gateway that only records. Task state changes are reported by the test.
 */
class JobMasterTest {
    private static final Duration DELAY = Duration.ofSeconds(2);
    private static final Duration MS = Duration.ofMillis(1);

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor mainThread =
            new ManuallyTriggeredMainThreadExecutor("jobmaster-test", clock);
    private final ManualExecutor io = new ManualExecutor();
    private final TestingTaskExecutorGateway taskExecutor = new TestingTaskExecutorGateway("te-1", 2);
    private final List<Integer> releasedDeployments = new CopyOnWriteArrayList<>();
    private final List<JobStatus> statusChanges = new CopyOnWriteArrayList<>();

    private JobGraph graph;
    private CheckpointStorage storage;
    private StandaloneCompletedCheckpointStore store;
    private JobMaster jobMaster;

    // ------------------------------------------------------------------ lifecycle

    @Test
    void startDeploysEverySubtaskWithoutRestoreWhenTheStoreIsEmpty() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ZERO);

        start();

        assertThat(status()).isEqualTo(JobStatus.RUNNING);
        List<TaskDeploymentDescriptor> submitted = taskExecutor.submitted();
        assertThat(graph.numberOfSubtasks()).isEqualTo(4);
        assertThat(submitted).hasSize(graph.numberOfSubtasks());
        assertThat(submitted).allSatisfy(d -> {
            assertThat(d.restore()).as("no checkpoint yet").isNull();
            assertThat(d.attemptNumber()).isZero();
            assertThat(d.jobGraph()).isSameAs(graph);
            assertThat(d.attemptId().jobId()).isEqualTo(graph.jobId());
        });
        Set<String> subtasks = new HashSet<>();
        for (TaskDeploymentDescriptor d : submitted) {
            subtasks.add(d.attemptId().vertexId() + "/" + d.subtaskIndex());
        }
        Set<String> expected = new HashSet<>();
        for (JobVertex v : graph.vertices()) {
            for (int i = 0; i < v.parallelism(); i++) {
                expected.add(v.id() + "/" + i);
            }
        }
        assertThat(subtasks).isEqualTo(expected);
        assertThat(submitted.stream().map(d -> d.attemptId().deployment()).distinct()).hasSize(1);
        assertThat(storage.metadataReads()).isZero();
        assertThat(jobMaster.resultFuture()).isNotDone();
    }

    @Test
    void allTasksFinishedFinishesTheJobAndRecordsTransitionsWithClockTimestamps() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ZERO);
        long t0 = clock.currentTimeMillis();
        clock.advance(Duration.ofSeconds(1));
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);
        clock.advance(Duration.ofSeconds(2));

        for (ExecutionAttemptId id : round.subList(0, round.size() - 1)) {
            report(id, ExecutionState.FINISHED);
        }
        assertThat(status()).as("one task still runs").isEqualTo(JobStatus.RUNNING);
        assertThat(jobMaster.resultFuture()).isNotDone();

        report(round.get(round.size() - 1), ExecutionState.FINISHED);

        assertThat(status()).isEqualTo(JobStatus.FINISHED);
        JobResult result = jobMaster.resultFuture().getNow(null);
        assertThat(result).isNotNull();
        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(result.jobId()).isEqualTo(graph.jobId());
        assertThat(result.failureMessage()).isNull();
        assertThat(result.endTimestampMillis()).isEqualTo(t0 + 3000);
        assertThat(onMain(jobMaster::currentDetails).transitions()).containsExactly(
                new JobStatusTransition(JobStatus.CREATED, t0),
                new JobStatusTransition(JobStatus.RUNNING, t0 + 1000),
                new JobStatusTransition(JobStatus.FINISHED, t0 + 3000));
        assertThat(statusChanges).containsExactly(JobStatus.RUNNING, JobStatus.FINISHED);
        assertThat(jobMaster.finalDetails().status()).isEqualTo(JobStatus.FINISHED);
        assertThat(releasedDeployments).containsExactly(round.get(0).deployment());
        assertThat(taskExecutor.cancelled()).isEmpty();
    }

    // ------------------------------------------------------------------ restarts

    @Test
    void fixedDelayRestartWaitsForAllCancellationsAndThenTheDelay() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ZERO);
        start();
        List<ExecutionAttemptId> first = currentRound();
        reportAll(first, ExecutionState.RUNNING);

        fail(first.get(1), new IllegalStateException("boom"));

        assertThat(status()).isEqualTo(JobStatus.RESTARTING);
        List<ExecutionAttemptId> others = without(first, first.get(1));
        assertThat(taskExecutor.cancelled()).as("every task that still runs is cancelled")
                .containsExactlyInAnyOrderElementsOf(others);

        // Waiting for cancellations takes as long as it takes: the delay has not started yet.
        for (ExecutionAttemptId id : others.subList(0, others.size() - 1)) {
            report(id, ExecutionState.CANCELED);
        }
        mainThread.advanceTime(DELAY.multipliedBy(5));
        assertThat(taskExecutor.submitted()).as("not all tasks have ended").hasSize(first.size());
        assertThat(mainThread.numScheduled()).isZero();

        report(others.get(others.size() - 1), ExecutionState.CANCELED);
        assertThat(status()).isEqualTo(JobStatus.RESTARTING);
        assertThat(releasedDeployments).containsExactly(first.get(0).deployment());
        mainThread.advanceTime(DELAY.minus(MS));
        assertThat(taskExecutor.submitted()).as("one ms before the delay").hasSize(first.size());

        mainThread.advanceTime(MS);

        assertThat(status()).isEqualTo(JobStatus.RUNNING);
        assertThat(taskExecutor.submitted()).hasSize(2 * first.size());
        List<ExecutionAttemptId> second = currentRound();
        assertThat(second).doesNotContainAnyElementsOf(first);
        assertThat(second.get(0).deployment()).isNotEqualTo(first.get(0).deployment());
        assertThat(taskExecutor.submitted().subList(first.size(), 2 * first.size()))
                .allSatisfy(d -> assertThat(d.attemptNumber()).isEqualTo(1));
        assertThat(statusChanges).containsExactly(JobStatus.RUNNING, JobStatus.RESTARTING, JobStatus.RUNNING);

        // Reports from the first round are stale and change nothing.
        int cancels = taskExecutor.cancelled().size();
        fail(first.get(0), new IllegalStateException("stale"));
        report(first.get(2), ExecutionState.FINISHED);
        assertThat(status()).isEqualTo(JobStatus.RUNNING);
        assertThat(taskExecutor.cancelled()).hasSize(cancels);
        assertThat(onMain(jobMaster::currentDetails).restarts()).isEqualTo(1);

        reportAll(second, ExecutionState.RUNNING);
        reportAll(second, ExecutionState.FINISHED);
        assertThat(status()).isEqualTo(JobStatus.FINISHED);
        assertThat(jobMaster.resultFuture().join().status()).isEqualTo(JobStatus.FINISHED);
    }

    @Test
    void aSubmissionThatFailsIsATaskFailureAndTheRestartDeploysAgain() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ZERO);
        taskExecutor.onSubmit(d -> java.util.concurrent.CompletableFuture.failedFuture(
                new java.io.IOException("Connection refused: te-1")));

        start();

        assertThat(status()).as("the first failed submission fails the job over").isEqualTo(JobStatus.RESTARTING);
        List<ExecutionAttemptId> first = currentRound();
        assertThat(taskExecutor.cancelled()).as("the others are cancelled").hasSize(first.size() - 1);
        JobDetails details = onMain(jobMaster::currentDetails);
        assertThat(details.failureMessage()).as("the root cause")
                .isEqualTo("java.io.IOException: Connection refused: te-1");
        assertThat(details.recentFailures()).as("one failover for the whole round").singleElement()
                .satisfies(f -> assertThat(f.restarted()).isTrue());
        assertThat(mainThread.numScheduled()).as("every submission failed: all ended, the restart waits")
                .isEqualTo(1);

        taskExecutor.onSubmit(d -> java.util.concurrent.CompletableFuture.completedFuture(
                Acknowledge.INSTANCE));
        mainThread.advanceTime(DELAY);

        assertThat(status()).isEqualTo(JobStatus.RUNNING);
        assertThat(taskExecutor.submitted()).hasSize(2 * first.size());
        assertThat(statusChanges).containsExactly(JobStatus.RUNNING, JobStatus.RESTARTING, JobStatus.RUNNING);
    }

    @Test
    void detailsShowEachSubtasksStateTheRecentFailuresAndTheRestoredCheckpoint() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ofSeconds(10));
        start();
        List<ExecutionAttemptId> first = currentRound();
        report(first.get(0), ExecutionState.RUNNING);
        JobDetails deploying = onMain(jobMaster::currentDetails);
        VertexStatus v0 = deploying.vertices().stream().filter(v -> v.vertexId() == first.get(0).vertexId()).findFirst()
                .orElseThrow();
        assertThat(v0.subtasks()).hasSize(v0.parallelism());
        assertThat(v0.subtasks()).extracting(SubtaskStatus::subtaskIndex).containsExactly(0, 1);
        assertThat(v0.subtasks().get(first.get(0).subtaskIndex()).state()).isEqualTo(ExecutionState.RUNNING);
        assertThat(v0.subtasks().get(1 - first.get(0).subtaskIndex()).state()).isEqualTo(ExecutionState.DEPLOYING);
        assertThat(deploying.recentFailures()).isEmpty();

        reportAll(first, ExecutionState.RUNNING);
        completeCheckpoint(first, 1);
        assertThat(onMain(jobMaster::currentDetails).checkpoints().restoredCheckpointId()).isEqualTo(-1);
        long failedAt = clock.currentTimeMillis();
        failAndCancelOthers(first, first.get(1));
        mainThread.advanceTime(DELAY);

        JobDetails restarted = onMain(jobMaster::currentDetails);
        assertThat(restarted.recentFailures()).containsExactly(new FailureEvent(failedAt,
                "java.lang.IllegalStateException: task " + first.get(1) + " failed", true));
        assertThat(restarted.checkpoints().restoredCheckpointId()).isEqualTo(1);
        assertThat(restarted.vertices()).allSatisfy(v -> assertThat(v.subtasks())
                .allSatisfy(st -> assertThat(st.state()).isEqualTo(ExecutionState.DEPLOYING)));
    }

    @Test
    void exponentialDelayBackoffsGrowWithEachFailure() {
        createJobMaster(new ExponentialDelay(Duration.ofMillis(100), Duration.ofSeconds(10), 2.0,
                Duration.ofHours(1), 0.0), Duration.ZERO);
        start();

        for (long expectedMillis : new long[] {100, 200, 400, 800}) {
            List<ExecutionAttemptId> round = currentRound();
            reportAll(round, ExecutionState.RUNNING);
            failAndCancelOthers(round, round.get(0));
            int submitted = taskExecutor.submitted().size();

            mainThread.advanceTime(Duration.ofMillis(expectedMillis).minus(MS));
            assertThat(taskExecutor.submitted()).as("before a backoff of %d ms", expectedMillis).hasSize(submitted);
            assertThat(status()).isEqualTo(JobStatus.RESTARTING);

            mainThread.advanceTime(MS);
            assertThat(taskExecutor.submitted()).as("after a backoff of %d ms", expectedMillis)
                    .hasSize(submitted + graph.numberOfSubtasks());
            assertThat(status()).isEqualTo(JobStatus.RUNNING);
        }
        assertThat(onMain(jobMaster::currentDetails).restarts()).isEqualTo(4);
    }

    @Test
    void failureRateGivesUpAfterMaxFailuresWithinTheIntervalAndKeepsTheRootCause() {
        createJobMaster(new FailureRate(2, Duration.ofMinutes(1), DELAY), Duration.ZERO);
        start();
        for (int i = 1; i <= 2; i++) {
            List<ExecutionAttemptId> round = currentRound();
            reportAll(round, ExecutionState.RUNNING);
            failAndCancelOthers(round, round.get(0));
            mainThread.advanceTime(DELAY);
            assertThat(status()).as("restart %d", i).isEqualTo(JobStatus.RUNNING);
        }
        List<ExecutionAttemptId> last = currentRound();
        reportAll(last, ExecutionState.RUNNING);

        fail(last.get(3), new RuntimeException("wrapped", new IOException("disk on fire")));

        assertThat(status()).isEqualTo(JobStatus.FAILING);
        assertThat(jobMaster.resultFuture()).isNotDone();
        List<ExecutionAttemptId> others = without(last, last.get(3));
        assertThat(taskExecutor.cancelled()).endsWith(others.toArray(new ExecutionAttemptId[0]));
        reportAll(others, ExecutionState.CANCELED);

        assertThat(status()).isEqualTo(JobStatus.FAILED);
        JobResult result = jobMaster.resultFuture().getNow(null);
        assertThat(result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(result.failureMessage()).isEqualTo("java.io.IOException: disk on fire");
        assertThat(result.failureStackTrace()).contains("wrapped").contains("disk on fire");
        assertThat(statusChanges).containsExactly(JobStatus.RUNNING, JobStatus.RESTARTING, JobStatus.RUNNING,
                JobStatus.RESTARTING, JobStatus.RUNNING, JobStatus.FAILING, JobStatus.FAILED);
        mainThread.advanceTime(Duration.ofHours(1));
        assertThat(taskExecutor.submitted()).hasSize(3 * graph.numberOfSubtasks());
    }

    @Test
    void noRestartFailsTheJobAtTheFirstFailure() {
        createJobMaster(new NoRestart(), Duration.ZERO);
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);

        fail(round.get(0), new IllegalArgumentException("bad record"));
        assertThat(status()).isEqualTo(JobStatus.FAILING);
        reportAll(without(round, round.get(0)), ExecutionState.CANCELED);

        assertThat(status()).isEqualTo(JobStatus.FAILED);
        assertThat(jobMaster.resultFuture().join().failureMessage())
                .isEqualTo("java.lang.IllegalArgumentException: bad record");
        assertThat(statusChanges).containsExactly(JobStatus.RUNNING, JobStatus.FAILING, JobStatus.FAILED);
        mainThread.advanceTime(Duration.ofHours(1));
        assertThat(taskExecutor.submitted()).hasSize(round.size());
    }

    // ------------------------------------------------------------------ restore

    @Test
    void restartRestoresFromTheLatestCheckpointInMemoryWithoutReadingMetadata() throws Exception {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ZERO);
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);
        JobVertex source = graph.vertices().stream().filter(JobVertex::isSource).findFirst().orElseThrow();
        JobVertex keyed = graph.vertices().stream().filter(JobVertex::hasKeyedState).findFirst().orElseThrow();
        List<TaskStateHandle> handles = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            handles.add(new TaskStateHandle(source.id(), i, null, 0, new byte[] {(byte) i, 42}, null));
            byte[] data = {1, 2, 3, (byte) i};
            String file = storage.writeTaskState(graph.jobId(), 7, keyed.id(), i, data);
            handles.add(new TaskStateHandle(keyed.id(), i, file, data.length, null,
                    KeyGroups.rangeForSubtask(i, keyed.maxParallelism(), keyed.parallelism())));
        }
        store.addCheckpoint(new CompletedCheckpoint(graph.jobId(), 7, clock.currentTimeMillis(),
                clock.currentTimeMillis(), handles, storage.metadataPath(graph.jobId(), 7)));

        failAndCancelOthers(round, round.get(2));
        mainThread.advanceTime(DELAY);

        List<TaskDeploymentDescriptor> redeployed =
                taskExecutor.submitted().subList(round.size(), 2 * round.size());
        assertThat(redeployed).hasSize(4).allSatisfy(d -> {
            TaskRestore restore = d.restore();
            assertThat(restore).isNotNull();
            assertThat(restore.checkpointId()).isEqualTo(7);
            int i = d.subtaskIndex();
            if (d.attemptId().vertexId() == source.id()) {
                assertThat(restore.sourcePosition()).containsExactly(i, 42);
                assertThat(restore.keyedStateHandles()).isEmpty();
            } else {
                assertThat(restore.sourcePosition()).isNull();
                assertThat(restore.keyedStateHandles()).containsExactly(handles.get(2 * i + 1));
            }
        });
        assertThat(storage.metadataReads()).as("restored from memory").isZero();
        assertThat(storage.stateReads()).as("the job master reads no state").isZero();
    }

    @Test
    void restoreHandsInlineStateToTheSubtasksOwningItsKeyGroupsWithoutAnyStorageRead() throws Exception {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ZERO);
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);
        JobVertex keyed = graph.vertices().stream().filter(JobVertex::hasKeyedState).findFirst().orElseThrow();
        List<TaskStateHandle> handles = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            handles.add(TaskStateHandle.inline(keyed.id(), i, new byte[] {4, 5, (byte) i}, null,
                    KeyGroups.rangeForSubtask(i, keyed.maxParallelism(), keyed.parallelism())));
        }
        store.addCheckpoint(new CompletedCheckpoint(graph.jobId(), 9, 0, 0, handles, storage.metadataPath(graph.jobId(), 9)));

        failAndCancelOthers(round, round.get(0));
        mainThread.advanceTime(DELAY);

        assertThat(taskExecutor.submitted().subList(round.size(), 2 * round.size()))
                .filteredOn(d -> d.attemptId().vertexId() == keyed.id())
                .hasSize(2)
                .allSatisfy(d -> assertThat(d.restore().keyedStateHandles())
                        .containsExactly(handles.get(d.subtaskIndex())));
        assertThat(storage.metadataReads()).isZero();
        assertThat(storage.stateReads()).isZero();
    }

    @Test
    void checkpointsThroughTheJobMasterTriggerSourcesNotifyAllAndAreRestoredFrom() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ofSeconds(10));
        start();
        List<ExecutionAttemptId> round = currentRound();
        mainThread.advanceTime(Duration.ofSeconds(10));
        assertThat(io.numQueued()).as("no trigger while tasks are deploying").isZero();
        reportAll(round, ExecutionState.RUNNING);
        mainThread.advanceTime(Duration.ofSeconds(10));
        io.triggerAll();
        mainThread.triggerAll();

        Set<Integer> sourceVertices = new HashSet<>();
        graph.vertices().stream().filter(JobVertex::isSource).forEach(v -> sourceVertices.add(v.id()));
        List<TestingTaskExecutorGateway.TriggerCall> triggers = taskExecutor.triggers();
        assertThat(triggers).hasSize(2).allSatisfy(t -> {
            assertThat(sourceVertices).contains(t.task().vertexId());
            assertThat(t.checkpointId()).isEqualTo(1);
            assertThat(t.timestampMillis()).isEqualTo(clock.currentTimeMillis());
        });

        for (ExecutionAttemptId id : round) {
            jobMaster.acknowledgeCheckpoint(id, 1, new TaskStateHandle(id.vertexId(), id.subtaskIndex(), null, 0,
                    sourceVertices.contains(id.vertexId()) ? new byte[] {9} : null, null));
        }
        mainThread.triggerAll();
        io.triggerAll();
        mainThread.triggerAll();

        assertThat(taskExecutor.notifications()).extracting(TestingTaskExecutorGateway.NotifyCall::task)
                .containsExactlyInAnyOrderElementsOf(round);
        assertThat(store.latest()).get().extracting(CompletedCheckpoint::checkpointId).isEqualTo(1L);
        assertThat(onMain(jobMaster::currentDetails).checkpoints().completed()).isEqualTo(1);

        failAndCancelOthers(round, round.get(0));
        mainThread.advanceTime(DELAY);
        assertThat(status()).isEqualTo(JobStatus.RUNNING);
        assertThat(taskExecutor.submitted().subList(round.size(), 2 * round.size()))
                .allSatisfy(d -> assertThat(d.restore().checkpointId()).isEqualTo(1));
        assertThat(storage.metadataReads()).isZero();
    }

    @Test
    void aTaskAwaitingItsFinalCheckpointAfterEverySourceFinishedIsTriggeredNotifiedAndOnlyThenFinishesTheJob() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ofSeconds(10));
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);
        List<ExecutionAttemptId> sources = round.stream().filter(id -> graph.vertex(id.vertexId()).isSource()).toList();
        List<ExecutionAttemptId> sinks = without(round, sources.get(0)).stream()
                .filter(id -> !graph.vertex(id.vertexId()).isSource()).toList();
        reportAll(sources, ExecutionState.FINISHED);
        report(sinks.get(1), ExecutionState.FINISHED);
        jobMaster.updateTaskExecutionState(new TaskExecutionState(sinks.get(0), ExecutionState.RUNNING, null, true));
        mainThread.triggerAll();

        long id = triggerCheckpoint();
        assertThat(taskExecutor.triggers()).as("every source finished; the waiting task is triggered directly")
                .containsExactly(new TestingTaskExecutorGateway.TriggerCall(sinks.get(0), id, clock.currentTimeMillis()));
        JobVertex sink = graph.vertex(sinks.get(0).vertexId());
        jobMaster.acknowledgeCheckpoint(sinks.get(0), id, TaskStateHandle.inline(sink.id(), 0, new byte[] {1}, null,
                KeyGroups.rangeForSubtask(0, sink.maxParallelism(), sink.parallelism())));
        mainThread.triggerAll();
        io.triggerAll();
        mainThread.triggerAll();

        assertThat(taskExecutor.notifications()).containsExactly(new TestingTaskExecutorGateway.NotifyCall(sinks.get(0), id));
        assertThat(status()).as("the waiting task has not finished").isEqualTo(JobStatus.RUNNING);
        report(sinks.get(0), ExecutionState.FINISHED);
        assertThat(status()).isEqualTo(JobStatus.FINISHED);
    }

    @Test
    void withoutATaskAwaitingItsFinalCheckpointNoCheckpointStartsOnceEverySourceFinished() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ofSeconds(10));
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);
        reportAll(round.stream().filter(id -> graph.vertex(id.vertexId()).isSource()).toList(), ExecutionState.FINISHED);

        mainThread.advanceTime(Duration.ofSeconds(30));
        io.triggerAll();
        mainThread.triggerAll();

        assertThat(taskExecutor.triggers()).isEmpty();
    }

    @Test
    void aCheckpointCompletingAfterAFailoverDoesNotNotifyTheNewDeployment() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ofSeconds(10));
        start();
        List<ExecutionAttemptId> first = currentRound();
        reportAll(first, ExecutionState.RUNNING);
        mainThread.advanceTime(Duration.ofSeconds(10));
        io.triggerAll();
        mainThread.triggerAll();
        for (ExecutionAttemptId id : first) {
            jobMaster.acknowledgeCheckpoint(id, 1, new TaskStateHandle(id.vertexId(), id.subtaskIndex(), null, 0,
                    null, null));
        }
        mainThread.triggerAll();
        assertThat(io.numQueued()).as("checkpoint 1 is being finalized").isEqualTo(1);

        // A task fails while the metadata is written; the job restarts before the write returns.
        failAndCancelOthers(first, first.get(0));
        mainThread.advanceTime(DELAY);
        List<ExecutionAttemptId> second = currentRound();
        assertThat(taskExecutor.submitted().subList(first.size(), 2 * first.size()))
                .as("checkpoint 1 was not complete at redeployment")
                .allSatisfy(d -> assertThat(d.restore()).isNull());
        reportAll(second, ExecutionState.RUNNING);

        io.triggerAll();
        mainThread.triggerAll();

        assertThat(store.latest()).get().extracting(CompletedCheckpoint::checkpointId).isEqualTo(1L);
        assertThat(taskExecutor.notifications())
                .as("tasks that did not take part in checkpoint 1 (and did not restore from it) are not told of it")
                .extracting(TestingTaskExecutorGateway.NotifyCall::task)
                .doesNotContainAnyElementsOf(second);
    }

    /**
     * Regression: with one retained checkpoint, a task fails while checkpoint 2 is fully acknowledged
     * and its metadata is being written (the I/O executor holds the write), so it is not aborted and
     * the restart restores from checkpoint 1. When checkpoint 2 then completes it subsumes checkpoint
     * 1, whose files the restarted tasks may still be reading: they must stay until every task of the
     * new deployment has reported that its restore is done (RUNNING).
     */
    @Test
    void aCheckpointCompletingDuringAFailoverKeepsTheRestoreCheckpointUntilTheNewTasksHaveRestored() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ofSeconds(10), 1);
        start();
        List<ExecutionAttemptId> first = currentRound();
        reportAll(first, ExecutionState.RUNNING);
        completeCheckpoint(first, 1);
        acknowledgeCheckpoint(first, triggerCheckpoint());
        assertThat(io.numQueued()).as("checkpoint 2 is being finalized; its metadata write is held").isEqualTo(1);

        failAndCancelOthers(first, first.get(0));
        mainThread.advanceTime(DELAY);
        List<ExecutionAttemptId> second = currentRound();
        List<TaskDeploymentDescriptor> redeployed = taskExecutor.submitted().subList(first.size(), 2 * first.size());
        assertThat(redeployed).allSatisfy(d -> assertThat(d.restore().checkpointId()).isEqualTo(1));
        List<Path> restoreFiles = redeployed.stream().flatMap(d -> d.restore().keyedStateHandles().stream())
                .map(h -> root.resolve(h.stateFile())).toList();
        assertThat(restoreFiles).hasSize(2).allSatisfy(f -> assertThat(f).isRegularFile());

        // Checkpoint 2 completes while the new tasks still restore from checkpoint 1.
        io.triggerAll();
        mainThread.triggerAll();
        io.triggerAll();
        assertThat(store.retainedIds()).containsExactly(2L);
        assertThat(restoreFiles).as("checkpoint 1 is still being restored from").allSatisfy(f -> assertThat(f).isRegularFile());

        reportAll(second.subList(0, second.size() - 1), ExecutionState.RUNNING);
        io.triggerAll();
        assertThat(restoreFiles).as("one task has not finished restoring").allSatisfy(f -> assertThat(f).isRegularFile());

        report(second.get(second.size() - 1), ExecutionState.RUNNING);
        io.triggerAll();
        assertThat(checkpointDir(1)).as("discarded once every new task restored").doesNotExist();
        assertThat(checkpointDir(2)).isDirectory();
    }

    @Test
    void aDeploymentThatFailsWhileRestoringReleasesItsCheckpointOnceAllItsTasksEnded() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ofSeconds(10), 1);
        start();
        List<ExecutionAttemptId> first = currentRound();
        reportAll(first, ExecutionState.RUNNING);
        completeCheckpoint(first, 1);
        acknowledgeCheckpoint(first, triggerCheckpoint());
        failAndCancelOthers(first, first.get(0));
        mainThread.advanceTime(DELAY);
        List<ExecutionAttemptId> second = currentRound();
        io.triggerAll();
        mainThread.triggerAll();
        io.triggerAll();
        assertThat(checkpointDir(1)).as("restored from by the second deployment").isDirectory();

        // The second deployment fails before any of its tasks finished restoring.
        failAndCancelOthers(second, second.get(1));
        io.triggerAll();
        assertThat(checkpointDir(1)).as("no task of the second deployment reads it any more").doesNotExist();

        mainThread.advanceTime(DELAY);
        assertThat(taskExecutor.submitted().subList(2 * first.size(), 3 * first.size()))
                .allSatisfy(d -> assertThat(d.restore().checkpointId()).isEqualTo(2));
        assertThat(checkpointDir(2)).isDirectory();
    }

    // ------------------------------------------------------------------ cancel

    @Test
    void cancelBeforeStartEndsCanceledAndStartDeploysNothing() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ZERO);

        cancel();
        assertThat(status()).isEqualTo(JobStatus.CANCELED);
        assertThat(jobMaster.resultFuture().getNow(null).status()).isEqualTo(JobStatus.CANCELED);

        start();
        assertThat(status()).isEqualTo(JobStatus.CANCELED);
        assertThat(taskExecutor.submitted()).isEmpty();
        assertThat(statusChanges).containsExactly(JobStatus.CANCELLING, JobStatus.CANCELED);
    }

    @Test
    void cancelWhileRunningCancelsAllTasksAndEndsCanceledOnceAllReported() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ofSeconds(10));
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);

        cancel();

        assertThat(status()).isEqualTo(JobStatus.CANCELLING);
        assertThat(taskExecutor.cancelled()).containsExactlyInAnyOrderElementsOf(round);
        reportAll(round.subList(0, 3), ExecutionState.CANCELED);
        assertThat(status()).isEqualTo(JobStatus.CANCELLING);
        assertThat(jobMaster.resultFuture()).isNotDone();

        report(round.get(3), ExecutionState.FAILED);

        assertThat(status()).as("a failure while cancelling does not restart").isEqualTo(JobStatus.CANCELED);
        assertThat(jobMaster.resultFuture().join().status()).isEqualTo(JobStatus.CANCELED);
        assertThat(jobMaster.resultFuture().join().failureMessage()).isNull();
        assertNothingDeployedLater(round.size());
        assertThat(io.numQueued()).as("no checkpoint is triggered").isZero();
    }

    @Test
    void cancelWhileRestartingAndWaitingForCancellations() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ZERO);
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);
        fail(round.get(0), new IllegalStateException("boom"));
        assertThat(status()).isEqualTo(JobStatus.RESTARTING);

        cancel();

        assertThat(status()).isEqualTo(JobStatus.CANCELLING);
        reportAll(without(round, round.get(0)), ExecutionState.CANCELED);
        assertThat(status()).isEqualTo(JobStatus.CANCELED);
        assertNothingDeployedLater(round.size());
        assertThat(statusChanges).containsExactly(JobStatus.RUNNING, JobStatus.RESTARTING, JobStatus.CANCELLING,
                JobStatus.CANCELED);
    }

    @Test
    void cancelWhileRestartingAndWaitingForTheBackoffCancelsTheScheduledRestart() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ZERO);
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);
        failAndCancelOthers(round, round.get(0));
        assertThat(mainThread.numScheduled()).as("the restart").isEqualTo(1);
        mainThread.advanceTime(DELAY.minus(MS));

        cancel();

        assertThat(status()).as("all tasks already ended").isEqualTo(JobStatus.CANCELED);
        assertThat(mainThread.numScheduled()).isZero();
        assertThat(jobMaster.resultFuture().join().status()).isEqualTo(JobStatus.CANCELED);
        assertNothingDeployedLater(round.size());
    }

    @Test
    void cancelWhileFailingEndsCanceled() {
        createJobMaster(new NoRestart(), Duration.ZERO);
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);
        fail(round.get(0), new IllegalStateException("boom"));
        assertThat(status()).isEqualTo(JobStatus.FAILING);

        cancel();
        reportAll(without(round, round.get(0)), ExecutionState.CANCELED);

        assertThat(status()).isEqualTo(JobStatus.CANCELED);
        assertThat(jobMaster.resultFuture().join().status()).isEqualTo(JobStatus.CANCELED);
        assertNothingDeployedLater(round.size());
    }

    @Test
    void cancelInATerminalStateIsANoOp() {
        createJobMaster(new NoRestart(), Duration.ZERO);
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);
        reportAll(round, ExecutionState.FINISHED);
        JobResult result = jobMaster.resultFuture().join();
        List<JobStatus> before = List.copyOf(statusChanges);

        cancel();

        assertThat(status()).isEqualTo(JobStatus.FINISHED);
        assertThat(statusChanges).isEqualTo(before);
        assertThat(taskExecutor.cancelled()).isEmpty();
        assertThat(jobMaster.resultFuture().join()).isSameAs(result);
    }

    @Test
    void cancelAfterFailedCanceledOrSuspendedChangesNothing() {
        for (JobStatus terminal : List.of(JobStatus.FAILED, JobStatus.CANCELED, JobStatus.SUSPENDED)) {
            statusChanges.clear();
            createJobMaster(new NoRestart(), Duration.ZERO);
            start();
            List<ExecutionAttemptId> round = currentRound();
            reportAll(round, ExecutionState.RUNNING);
            switch (terminal) {
                case FAILED -> {
                    fail(round.get(0), new IllegalStateException("boom"));
                    reportAll(round, ExecutionState.CANCELED);
                }
                case CANCELED -> {
                    cancel();
                    reportAll(round, ExecutionState.CANCELED);
                }
                default -> {
                    onMain(() -> {
                        jobMaster.suspend("test");
                        return null;
                    });
                    reportAll(round, ExecutionState.CANCELED);
                }
            }
            assertThat(status()).isEqualTo(terminal);
            List<JobStatus> before = List.copyOf(statusChanges);
            int cancels = taskExecutor.cancelled().size();

            cancel();

            assertThat(status()).as("after %s", terminal).isEqualTo(terminal);
            assertThat(statusChanges).isEqualTo(before);
            assertThat(taskExecutor.cancelled()).hasSize(cancels);
            assertThat(jobMaster.resultFuture().join().status()).isEqualTo(terminal);
        }
    }

    // ------------------------------------------------------------------ suspend

    @Test
    void suspendEndsSuspendedAtOnceCancelsTasksAndKeepsTheCheckpointStore() throws Exception {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ofSeconds(10));
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);
        String file = storage.writeTaskState(graph.jobId(), 3, round.get(2).vertexId(), 0, new byte[] {1});
        store.addCheckpoint(new CompletedCheckpoint(graph.jobId(), 3, 0, 0,
                List.of(new TaskStateHandle(round.get(2).vertexId(), 0, file, 1, null, null)),
                storage.metadataPath(graph.jobId(), 3)));

        onMain(() -> {
            jobMaster.suspend("leadership lost");
            return null;
        });

        assertThat(status()).isEqualTo(JobStatus.SUSPENDED);
        // The result completes only once the cancelled tasks are gone, so that a job manager that shuts
        // down leaves the election only when no task of its own still runs.
        assertThat(jobMaster.resultFuture()).isNotDone();
        assertThat(taskExecutor.cancelled()).containsExactlyInAnyOrderElementsOf(round);
        assertThat(store.retainedIds()).containsExactly(3L);
        io.triggerAll();
        assertThat(root.resolve(file)).isRegularFile();
        assertThat(storage.discards()).isZero();

        reportAll(round, ExecutionState.CANCELED);
        assertThat(status()).isEqualTo(JobStatus.SUSPENDED);
        assertThat(jobMaster.resultFuture().getNow(null).status()).isEqualTo(JobStatus.SUSPENDED);
        assertThat(statusChanges).containsExactly(JobStatus.RUNNING, JobStatus.SUSPENDED);
        assertNothingDeployedLater(round.size());
        assertThat(io.numQueued()).as("no checkpoint after suspension").isZero();
    }

    @Test
    void suspendWhileWaitingForTheBackoffDeploysNothingAfterwards() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ZERO);
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);
        failAndCancelOthers(round, round.get(1));

        onMain(() -> {
            jobMaster.suspend("leadership lost");
            return null;
        });

        assertThat(status()).isEqualTo(JobStatus.SUSPENDED);
        assertThat(jobMaster.resultFuture().getNow(null).status()).isEqualTo(JobStatus.SUSPENDED);
        assertNothingDeployedLater(round.size());
    }

    // ------------------------------------------------------------------ unrecoverable errors, restart history

    @Test
    void anUnrecoverableErrorFailsTheJobAtOnceWithoutSpendingARestart() {
        createJobMaster(RestartStrategyConfig.defaults(), Duration.ZERO);
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);

        fail(round.get(0), new RuntimeException("record writer failed",
                new NullKeyException("A key selector returned null; keys must not be null")));

        assertThat(status()).isEqualTo(JobStatus.FAILING);
        reportAll(without(round, round.get(0)), ExecutionState.CANCELED);
        assertThat(status()).isEqualTo(JobStatus.FAILED);
        JobResult result = jobMaster.resultFuture().getNow(null);
        assertThat(result.failureMessage()).isEqualTo(
                "io.sluice.api.errors.NullKeyException: A key selector returned null; keys must not be null");
        assertThat(onMain(jobMaster::currentDetails).restarts()).isZero();
        assertNothingDeployedLater(round.size());
    }

    @Test
    void everyRestartIsInTheHistoryWithItsTimeAndCause() {
        createJobMaster(RestartStrategyConfig.defaults(), Duration.ZERO);
        start();
        long firstAt = clock.currentTimeMillis();
        for (int i = 0; i < 3; i++) {
            List<ExecutionAttemptId> round = currentRound();
            reportAll(round, ExecutionState.RUNNING);
            fail(round.get(1), new IllegalStateException("boom " + i));
            reportAll(without(round, round.get(1)), ExecutionState.CANCELED);
            mainThread.advanceTime(Duration.ofMinutes(1)); // at least the backoff
        }
        RestartHistory history = onMain(jobMaster::currentDetails).restartHistory();
        assertThat(history.restartsInWindow()).isEqualTo(3);
        assertThat(history.recent()).extracting(RestartHistory.RestartEvent::cause).containsExactly(
                "java.lang.IllegalStateException: boom 0", "java.lang.IllegalStateException: boom 1",
                "java.lang.IllegalStateException: boom 2");
        assertThat(history.recent().get(0).timestampMillis()).isEqualTo(firstAt);
        assertThat(status()).as("the default strategy never gives up").isEqualTo(JobStatus.RUNNING);

        mainThread.advanceTime(Duration.ofMinutes(10));
        assertThat(onMain(jobMaster::currentDetails).restartHistory().restartsInWindow()).isZero();
    }

    // ------------------------------------------------------------------ finished tasks

    @Test
    void aFinishedSourceIsPartOfLaterCheckpointsAndIsRestoredAsFinished() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ofSeconds(10));
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);
        ExecutionAttemptId finishedSource = round.stream()
                .filter(id -> graph.vertex(id.vertexId()).isSource()).findFirst().orElseThrow();
        report(finishedSource, ExecutionState.FINISHED);

        long id = triggerCheckpoint();
        assertThat(taskExecutor.triggers()).extracting(t -> t.task())
                .as("only the running source is triggered").doesNotContain(finishedSource).hasSize(1);
        acknowledgeCheckpoint(without(round, finishedSource), id);
        io.triggerAll();
        mainThread.triggerAll();

        CompletedCheckpoint cp = store.latest().orElseThrow();
        assertThat(cp.checkpointId()).isEqualTo(id);
        assertThat(cp.stateOf(finishedSource.vertexId(), finishedSource.subtaskIndex()).isFinished()).isTrue();

        failAndCancelOthers(round, round.stream().filter(r -> !r.equals(finishedSource)).findFirst().orElseThrow());
        mainThread.advanceTime(DELAY);
        TaskDeploymentDescriptor restored = taskExecutor.submitted().stream()
                .skip(round.size())
                .filter(d -> d.attemptId().vertexId() == finishedSource.vertexId()
                        && d.subtaskIndex() == finishedSource.subtaskIndex())
                .findFirst().orElseThrow();
        assertThat(restored.restore().finished()).as("restored as finished: it emits nothing again").isTrue();
    }

    @Test
    void aSubtaskAwaitingItsFinalCheckpointShowsSoInTheDetailsUntilItFinishes() {
        createJobMaster(new FixedDelay(3, DELAY), Duration.ofSeconds(10));
        start();
        List<ExecutionAttemptId> round = currentRound();
        reportAll(round, ExecutionState.RUNNING);
        ExecutionAttemptId waiting = round.stream()
                .filter(id -> !graph.vertex(id.vertexId()).isSource()).findFirst().orElseThrow();
        assertThat(subtaskStatus(waiting).awaitingFinalCheckpoint()).as("before it says so").isFalse();

        jobMaster.updateTaskExecutionState(new TaskExecutionState(waiting, ExecutionState.RUNNING, null, true));
        mainThread.triggerAll();

        assertThat(subtaskStatus(waiting).state()).isEqualTo(ExecutionState.RUNNING);
        assertThat(subtaskStatus(waiting).awaitingFinalCheckpoint()).isTrue();
        assertThat(round.stream().filter(id -> !id.equals(waiting)).map(this::subtaskStatus))
                .as("the other subtasks").noneMatch(SubtaskStatus::awaitingFinalCheckpoint);

        report(waiting, ExecutionState.FINISHED);
        assertThat(subtaskStatus(waiting).state()).isEqualTo(ExecutionState.FINISHED);
        assertThat(subtaskStatus(waiting).awaitingFinalCheckpoint()).as("once finished").isFalse();
    }

    private SubtaskStatus subtaskStatus(ExecutionAttemptId id) {
        return onMain(jobMaster::currentDetails).vertices().stream()
                .filter(v -> v.vertexId() == id.vertexId())
                .flatMap(v -> v.subtasks().stream())
                .filter(s -> s.subtaskIndex() == id.subtaskIndex())
                .findFirst().orElseThrow();
    }

    // ------------------------------------------------------------------ harness

    private void createJobMaster(RestartStrategyConfig restart, Duration checkpointInterval) {
        createJobMaster(restart, checkpointInterval, 3);
    }

    private void createJobMaster(RestartStrategyConfig restart, Duration checkpointInterval, int retained) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create()
                .setParallelism(2)
                .setRetainedCheckpoints(retained)
                .setRestartStrategy(restart)
                .setCheckpointDir(root.toString());
        if (!checkpointInterval.isZero()) {
            env.enableCheckpointing(checkpointInterval);
        }
        env.fromSequence(0, 100).keyBy(v -> v % 4).map(v -> v).addSink(v -> { });
        graph = env.buildJobGraph("job-master-test");
        storage = new CheckpointStorage(new LocalFileBlobStore(root), new SimpleMeterRegistry());
        store = new StandaloneCompletedCheckpointStore(graph.jobId(), graph.config().retainedCheckpoints(), storage);
        List<io.sluice.protocol.TaskExecutorGateway> slots = new ArrayList<>();
        for (int i = 0; i < graph.requiredSlots(); i++) {
            slots.add(taskExecutor);
        }
        JobMasterServices services = new JobMasterServices(storage, store, new InMemoryCheckpointIdCounter(1),
                (jobId, deployment) -> releasedDeployments.add(deployment), slots, io, clock,
                RestartStrategies.create(restart, clock, new Random(7)), () -> true);
        jobMaster = new JobMaster(graph, services, mainThread, statusChanges::add);
    }

    private void start() {
        mainThread.execute(jobMaster::start);
        mainThread.triggerAll();
    }

    private void cancel() {
        jobMaster.cancel();
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

    /** The attempts of the latest deployment round. */
    private List<ExecutionAttemptId> currentRound() {
        List<ExecutionAttemptId> ids = taskExecutor.submittedIds();
        return List.copyOf(ids.subList(ids.size() - graph.numberOfSubtasks(), ids.size()));
    }

    private void report(ExecutionAttemptId id, ExecutionState state) {
        jobMaster.updateTaskExecutionState(new TaskExecutionState(id, state, null));
        mainThread.triggerAll();
    }

    private void reportAll(List<ExecutionAttemptId> ids, ExecutionState state) {
        for (ExecutionAttemptId id : ids) {
            report(id, state);
        }
    }

    private void fail(ExecutionAttemptId id, Throwable cause) {
        jobMaster.updateTaskExecutionState(new TaskExecutionState(id, ExecutionState.FAILED, cause));
        mainThread.triggerAll();
    }

    /** Fails one task and reports the others cancelled, as task executors would. */
    private void failAndCancelOthers(List<ExecutionAttemptId> round, ExecutionAttemptId failing) {
        fail(failing, new IllegalStateException("task " + failing + " failed"));
        assertThat(status()).isEqualTo(JobStatus.RESTARTING);
        reportAll(without(round, failing), ExecutionState.CANCELED);
    }

    /** Advances to the next periodic trigger and lets it reach the sources; returns its id. */
    private long triggerCheckpoint() {
        int before = taskExecutor.triggers().size();
        mainThread.advanceTime(Duration.ofSeconds(10));
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(taskExecutor.triggers()).as("a trigger went out").hasSizeGreaterThan(before);
        return taskExecutor.triggers().get(taskExecutor.triggers().size() - 1).checkpointId();
    }

    /** Every task of {@code round} acknowledges; keyed subtasks write a state file first, as tasks do. */
    private void acknowledgeCheckpoint(List<ExecutionAttemptId> round, long checkpointId) {
        for (ExecutionAttemptId id : round) {
            JobVertex v = graph.vertex(id.vertexId());
            TaskStateHandle handle;
            if (v.hasKeyedState()) {
                byte[] data = {1, 2, (byte) id.subtaskIndex()};
                String file = storage.writeTaskState(graph.jobId(), checkpointId, v.id(), id.subtaskIndex(), data);
                handle = new TaskStateHandle(v.id(), id.subtaskIndex(), file, data.length, null,
                        KeyGroups.rangeForSubtask(id.subtaskIndex(), v.maxParallelism(), v.parallelism()));
            } else {
                handle = new TaskStateHandle(v.id(), id.subtaskIndex(), null, 0,
                        v.isSource() ? new byte[] {(byte) checkpointId} : null, null);
            }
            jobMaster.acknowledgeCheckpoint(id, checkpointId, handle);
        }
        mainThread.triggerAll();
    }

    /** Triggers, acknowledges and completes the next checkpoint, which must get {@code expectedId}. */
    private void completeCheckpoint(List<ExecutionAttemptId> round, long expectedId) {
        assertThat(triggerCheckpoint()).isEqualTo(expectedId);
        acknowledgeCheckpoint(round, expectedId);
        io.triggerAll();
        mainThread.triggerAll();
        io.triggerAll();
        assertThat(store.latest()).get().extracting(CompletedCheckpoint::checkpointId).isEqualTo(expectedId);
    }

    private Path checkpointDir(long checkpointId) {
        return root.resolve(graph.jobId().value()).resolve("chk-" + checkpointId);
    }

    private static List<ExecutionAttemptId> without(List<ExecutionAttemptId> ids, ExecutionAttemptId excluded) {
        return ids.stream().filter(id -> !id.equals(excluded)).toList();
    }

    private void assertNothingDeployedLater(int expectedSubmissions) {
        mainThread.advanceTime(Duration.ofHours(1));
        assertThat(taskExecutor.submitted()).as("no deployment after the job ended").hasSize(expectedSubmissions);
    }
}
