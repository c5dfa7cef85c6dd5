package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.network.netty.NettyShuffleEnvironment;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskMetrics;
import io.sluice.rpc.Acknowledge;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.RecordingJobMasterGateway;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task manager process whose job manager changes. The new leader is another process, whose job
 * masters number their deployment rounds from 1 again, so the same round numbers (and the same
 * {@link ExecutionAttemptId}s) come back. The task executor cancels its tasks when it loses its job
 * manager; once they have ended it forgets their channels, and the new leader's rounds get fresh ones.
 *
 * <p>Before, the cancelled tasks' released channels stayed in the data exchange, and a round the old
 * leader had released stayed marked as released: the new leader's round with that number failed at
 * once on a released channel, and the job's restart strategy counted a failure no task caused. Each
 * job-manager failover then cost the new job master one failure (or more), and the next real failure
 * (a lost task manager) waited one exponential backoff step (or more) longer than it should
 * (docs/benchmarks.md, "Separate processes").
 *
 * <p>The task executor runs on a manually triggered main thread; tasks run on their own threads (as
 * in production), and the test waits (bounded) only for their reports and counters.
 */
@Timeout(60)
class TaskExecutorNewJobManagerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor main = new ManuallyTriggeredMainThreadExecutor("taskexecutor-test", clock);
    private final ExecutorService io = Executors.newCachedThreadPool();
    private final RecordingJobMasterGateway oldLeader = new RecordingJobMasterGateway();
    private final RecordingJobMasterGateway newLeader = new RecordingJobMasterGateway();
    private CheckpointStorageRegistry storages;
    private NettyShuffleEnvironment network;
    private TaskExecutor taskExecutor;
    private JobGraph graph;

    @BeforeEach
    void setUp() {
        storages = new CheckpointStorageRegistry(new SimpleMeterRegistry());
        network = NettyShuffleEnvironment.start("te-test", "127.0.0.1", 0, 4, 4096, 1);
        taskExecutor = new TaskExecutor("te-test", 2, main, io, network, storages);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .setCheckpointDir(root.toString());
        env.fromSequence(0, Long.MAX_VALUE).keyBy(v -> v % 4).map(v -> v + 1).addSink(v -> { });
        graph = env.buildJobGraph("two tasks, one channel");
        assertThat(graph.vertices()).as("a source task and a keyed task, one channel between them").hasSize(2);
    }

    @AfterEach
    void tearDown() {
        taskExecutor.cancelAll();
        main.triggerAll();
        await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
            main.triggerAll();
            CompletableFuture<Integer> n = taskExecutor.numberOfTasks();
            main.triggerAll();
            return n.join() == 0;
        });
        network.close();
        io.shutdownNow();
        storages.close();
    }

    @Test
    void theNewLeadersRoundWithTheNumberOfTheCancelledOneGetsFreshChannels() {
        List<TaskDeploymentDescriptor> round1 = round(1);
        deploy(round1, oldLeader);
        awaitRecordsThrough(round1.get(1).attemptId(), oldLeader);

        CompletableFuture<Void> ended = taskExecutor.cancelAllTasks("job manager lost: the leader changed");
        main.triggerAll();
        for (TaskDeploymentDescriptor d : round1) {
            awaitEnded(oldLeader, d.attemptId());
        }
        main.triggerAll();
        assertThat(ended).isCompleted();

        // The new leader (another process) numbers its first round 1 as well.
        List<TaskDeploymentDescriptor> again = round(1);
        deploy(again, newLeader);
        awaitRecordsThrough(again.get(1).attemptId(), newLeader);

        assertThat(newLeader.failures()).as("no task of the new leader's round fails").isEmpty();
    }

    @Test
    void aRoundTheOldLeaderReleasedIsUsableByTheNewLeader() {
        List<TaskDeploymentDescriptor> round2 = round(2);
        deploy(round2, oldLeader);
        awaitRecordsThrough(round2.get(1).attemptId(), oldLeader);
        // The old leader restarted once: it cancelled round 2 and released its channels.
        for (TaskDeploymentDescriptor d : round2) {
            taskExecutor.cancelTask(d.attemptId());
        }
        main.triggerAll();
        for (TaskDeploymentDescriptor d : round2) {
            awaitEnded(oldLeader, d.attemptId());
        }
        taskExecutor.releaseChannels(graph.jobId(), 2);
        main.triggerAll();
        // Then it died; the task executor has nothing left to cancel.
        CompletableFuture<Void> ended = taskExecutor.cancelAllTasks("job manager lost: the leader changed");
        main.triggerAll();
        assertThat(ended).isCompleted();

        List<TaskDeploymentDescriptor> newRound1 = round(1);
        deploy(newRound1, newLeader);
        awaitRecordsThrough(newRound1.get(1).attemptId(), newLeader);

        assertThat(newLeader.failures()).as("no task of the new leader's round fails").isEmpty();
    }

    // ------------------------------------------------------------------ helpers

    private List<TaskDeploymentDescriptor> round(int deployment) {
        List<TaskDeploymentDescriptor> out = new ArrayList<>();
        for (JobVertex v : graph.vertices()) {
            out.add(new TaskDeploymentDescriptor(graph, new ExecutionAttemptId(graph.jobId(), v.id(), 0, deployment), 0, null));
        }
        return out;
    }

    private void deploy(List<TaskDeploymentDescriptor> round, RecordingJobMasterGateway jobMaster) {
        List<CompletableFuture<Acknowledge>> acks = new ArrayList<>();
        for (TaskDeploymentDescriptor d : round) {
            acks.add(taskExecutor.submitTask(d, jobMaster));
        }
        main.triggerAll();
        main.triggerAll();
        for (CompletableFuture<Acknowledge> ack : acks) {
            assertThat(ack).isCompleted();
        }
    }

    /**
     * Waits (bounded) until the keyed task {@code consumer} has taken 10,000 records through its
     * channel, or a task reported a failure; fails in the second case, naming the failure.
     */
    private void awaitRecordsThrough(ExecutionAttemptId consumer, RecordingJobMasterGateway jobMaster) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
            main.triggerAll();
            if (!jobMaster.failures().isEmpty()) {
                return true;
            }
            CompletableFuture<List<TaskMetrics>> metrics = taskExecutor.requestTaskMetrics(graph.jobId());
            main.triggerAll();
            return metrics.join().stream().anyMatch(m -> m.attemptId().equals(consumer) && m.recordsIn() >= 10_000);
        });
        assertThat(jobMaster.failures()).as("failures of tasks in round %d", consumer.deployment()).isEmpty();
    }

    /**
     * Waits (bounded) until task {@code id} reported its end: CANCELED, or FAILED when its peer was
     * cancelled first and released the channel between them.
     */
    private void awaitEnded(RecordingJobMasterGateway jobMaster, ExecutionAttemptId id) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
            main.triggerAll();
            return jobMaster.states(id).stream().anyMatch(ExecutionState::isTerminal);
        });
    }
}
