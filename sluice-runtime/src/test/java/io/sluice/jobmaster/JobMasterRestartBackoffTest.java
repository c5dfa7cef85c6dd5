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
import io.sluice.graph.JobGraph;
import io.sluice.network.ChannelReleasedException;
import io.sluice.network.netty.RemoteChannelException;
import io.sluice.restart.RestartHistory;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one lost task manager costs the job under the DEFAULT restart strategy (exponential delay:
 * 1 s, doubling, ±10 % jitter, reset after 10 minutes without failure), on a manual clock and a
 * manually triggered main thread. A loss has several consequences that all reach the job master:
 * the task on the surviving task manager fails at once on its broken channel to the dead one, the
 * heartbeat timeout counts the dead one's tasks as failed 6 s later, and the restart may have to wait
 * for slots. Together they are one failure: one restart, one backoff step, one entry in the
 * restart history with its cause.
 */
class JobMasterRestartBackoffTest {
    private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(6);
    private static final Duration STEP = Duration.ofMillis(10);

    @TempDir
    Path root;

    private final long seed = System.nanoTime();
    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor mainThread = new ManuallyTriggeredMainThreadExecutor("jobmaster", clock);
    private final SlotPool pool = SlotPool.dynamic();
    private final List<TestingTaskExecutorGateway> taskExecutors = new ArrayList<>();
    private int started;
    private JobGraph graph;
    private JobMaster jobMaster;
    private JobMasterDriver driver;

    @BeforeEach
    void createJobMaster() {
        System.out.println("JobMasterRestartBackoffTest seed " + seed);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .setCheckpointDir(root.toString()); // the default restart strategy
        env.fromSequence(0, Long.MAX_VALUE).keyBy(v -> v % 4).map(v -> v).addSink(v -> { });
        graph = env.buildJobGraph("backoff");
        CheckpointStorage storage = new CheckpointStorage(new LocalFileBlobStore(root), new SimpleMeterRegistry());
        JobMasterServices services = new JobMasterServices(storage,
                new StandaloneCompletedCheckpointStore(graph.jobId(), 3, storage), new InMemoryCheckpointIdCounter(1),
                (jobId, deployment) -> { }, List.of(), new ManualExecutor(), clock,
                RestartStrategies.create(graph.config().restartStrategy(), clock, new Random(seed)), () -> true, pool);
        jobMaster = new JobMaster(graph, services, mainThread);
        driver = new JobMasterDriver(jobMaster, mainThread);
        startTaskExecutor();
        startTaskExecutor();
        mainThread.execute(jobMaster::start);
        mainThread.triggerAll();
        reportCurrentRoundRunning();
    }

    @Test
    void aLostTaskManagerWhosePeerFailsOnItsBrokenChannelCostsOneRestartAfterTheInitialDelay() {
        Duration delay = loseTheTaskManagerOfSubtask1(true);

        assertThat(delay).as("one failure: the initial 1 s, ±10 %% jitter (seed %d)", seed)
                .isBetween(Duration.ofMillis(900), Duration.ofMillis(1_100));
        JobDetails d = details();
        assertThat(d.restarts()).isEqualTo(1);
        assertThat(d.recentFailures()).as("the broken channel counted; the heartbeat timeout after it did not")
                .singleElement().satisfies(f -> {
                    assertThat(f.cause()).contains("Connection to the data server");
                    assertThat(f.restarted()).isTrue();
                });
        RestartHistory history = d.restartHistory();
        assertThat(history.restartsInWindow()).isEqualTo(1);
        assertThat(history.recent()).singleElement()
                .satisfies(r -> assertThat(r.cause()).contains("Connection to the data server"));
    }

    @Test
    void lossesAMinuteApartDoubleTheDelayOncePerLoss() {
        List<Duration> delays = new ArrayList<>();
        for (int loss = 0; loss < 5; loss++) {
            if (loss > 0) {
                mainThread.advanceTime(Duration.ofMinutes(1));
            }
            delays.add(loseTheTaskManagerOfSubtask1(loss % 2 == 0)); // with and without a peer's channel failure
        }

        for (int loss = 0; loss < delays.size(); loss++) {
            long expectedMillis = 1_000L << loss;
            assertThat(delays.get(loss)).as("loss %d of %s (seed %d)", loss + 1, delays, seed)
                    .isBetween(Duration.ofMillis(expectedMillis * 9 / 10), Duration.ofMillis(expectedMillis * 11 / 10 + 10));
        }
        JobDetails d = details();
        assertThat(d.restarts()).isEqualTo(5);
        assertThat(d.restartHistory().restartsInWindow()).isEqualTo(5);
        assertThat(d.restartHistory().recent()).hasSize(5);
        assertThat(d.recentFailures()).hasSize(5).allSatisfy(f -> assertThat(f.restarted()).isTrue());
    }

    @Test
    void waitingForSlotsAfterALossAddsNoBackoffStep() {
        loseTheTaskManagerOfSubtask1AndWaitForSlots(Duration.ofSeconds(30));
        assertThat(details().restarts()).isEqualTo(1);
        assertThat(details().restartHistory().restartsInWindow()).isEqualTo(1);

        mainThread.advanceTime(Duration.ofMinutes(1));
        Duration second = loseTheTaskManagerOfSubtask1(true);

        assertThat(second).as("the second failure's step, 2 s ±10 %%, not more (seed %d)", seed)
                .isBetween(Duration.ofMillis(1_800), Duration.ofMillis(2_210));
        assertThat(details().restartHistory().restartsInWindow()).isEqualTo(2);
    }

    // ------------------------------------------------------------------ helpers

    private TestingTaskExecutorGateway startTaskExecutor() {
        TestingTaskExecutorGateway te = new TestingTaskExecutorGateway("tm-" + (++started), 1);
        taskExecutors.add(te);
        pool.addTaskExecutor(te, "i-" + started, "unused");
        return te;
    }

    /**
     * Kills the task manager running subtask 1 of every vertex; a replacement starts at once, so
     * slots suffice. With {@code peerFails} the keyed task on the surviving task manager (subtask 0)
     * fails at once on its channel from the dead one, as over TCP. The heartbeat timeout then counts
     * the dead one as lost. Returns the time from that moment (the last task ended) to RUNNING.
     */
    private Duration loseTheTaskManagerOfSubtask1(boolean peerFails) {
        TestingTaskExecutorGateway victim = runnerOf(1);
        TestingTaskExecutorGateway survivor = runnerOf(0);
        startTaskExecutor();
        mainThread.triggerAll();
        if (peerFails) {
            ExecutionAttemptId keyed = currentRound().stream()
                    .filter(id -> id.subtaskIndex() == 0 && id.vertexId() != sourceVertex()).findFirst().orElseThrow();
            report(keyed, ExecutionState.FAILED, new ChannelReleasedException("Channel of " + keyed,
                    new RemoteChannelException("Connection to the data server 10.0.0.2:6121 (the task executor running"
                            + " the producer) was lost")));
            assertThat(status()).isEqualTo(JobStatus.RESTARTING);
        }
        heartbeatTimeout(victim, survivor);
        assertThat(status()).isEqualTo(JobStatus.RESTARTING);
        Duration waited = awaitRunning();
        reportCurrentRoundRunning();
        return waited;
    }

    /**
     * As above, without a peer's failure and with no replacement until {@code waiting} has passed
     * after the loss: the restart, due after the initial delay, waits for slots meanwhile.
     */
    private void loseTheTaskManagerOfSubtask1AndWaitForSlots(Duration waiting) {
        TestingTaskExecutorGateway victim = runnerOf(1);
        TestingTaskExecutorGateway survivor = runnerOf(0);
        heartbeatTimeout(victim, survivor);
        mainThread.advanceTime(waiting);
        assertThat(status()).isEqualTo(JobStatus.RESTARTING);
        assertThat(details().recovery().phase()).isEqualTo("waiting for 2 slots; 1 free on 1 task manager");
        assertThat(details().restarts()).as("waiting is no further restart").isEqualTo(1);
        startTaskExecutor();
        mainThread.triggerAll();
        reportCurrentRoundRunning();
    }

    /**
     * The heartbeat timeout passes: the registry counts {@code victim} as lost, and the tasks of the
     * current round that the job master then cancelled on {@code survivor} report CANCELED.
     */
    private void heartbeatTimeout(TestingTaskExecutorGateway victim, TestingTaskExecutorGateway survivor) {
        mainThread.advanceTime(HEARTBEAT_TIMEOUT);
        pool.removeTaskExecutor(victim.id(), "task manager " + victim.id() + " lost: no heartbeat for 6 s");
        mainThread.triggerAll();
        reportCancelledInCurrentRound(survivor);
    }

    /** The tasks of the current round that the job master cancelled on {@code te} report CANCELED. */
    private void reportCancelledInCurrentRound(TestingTaskExecutorGateway te) {
        int deployment = currentDeployment();
        for (ExecutionAttemptId id : te.cancelled()) {
            if (id.deployment() == deployment) {
                report(id, ExecutionState.CANCELED, null);
            }
        }
    }

    /** Advances the clock in small steps until the job runs again; how long that took. */
    private Duration awaitRunning() {
        Duration waited = Duration.ZERO;
        while (status() != JobStatus.RUNNING) {
            assertThat(waited).as("the job restarts within the 1 min cap").isLessThan(Duration.ofSeconds(70));
            mainThread.advanceTime(STEP);
            waited = waited.plus(STEP);
        }
        return waited;
    }

    private int sourceVertex() {
        return graph.vertices().get(0).id();
    }

    private int currentDeployment() {
        return taskExecutors.stream().flatMap(te -> te.submittedIds().stream())
                .mapToInt(ExecutionAttemptId::deployment).max().orElseThrow();
    }

    private List<ExecutionAttemptId> currentRound() {
        int deployment = currentDeployment();
        return taskExecutors.stream().flatMap(te -> te.submittedIds().stream())
                .filter(id -> id.deployment() == deployment).toList();
    }

    private TestingTaskExecutorGateway runnerOf(int subtask) {
        int deployment = currentDeployment();
        return taskExecutors.stream().filter(te -> te.submittedIds().stream()
                .anyMatch(id -> id.deployment() == deployment && id.subtaskIndex() == subtask)).findFirst().orElseThrow();
    }

    private void reportCurrentRoundRunning() {
        for (ExecutionAttemptId id : currentRound()) {
            report(id, ExecutionState.RUNNING, null);
        }
        assertThat(status()).isEqualTo(JobStatus.RUNNING);
    }

    private void report(ExecutionAttemptId id, ExecutionState state, Throwable failure) {
        driver.report(id, state, failure);
    }

    private JobStatus status() {
        return driver.status();
    }

    private JobDetails details() {
        return driver.details();
    }
}
