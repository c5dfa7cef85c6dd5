package io.sluice.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.InMemoryCheckpointIdCounter;
import io.sluice.checkpoint.StandaloneCompletedCheckpointStore;
import io.sluice.config.RestartStrategyConfig.FixedDelay;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.restart.RestartStrategies;
import io.sluice.rpc.Acknowledge;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.protocol.TaskMetrics;
import io.sluice.testutil.ManualExecutor;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job master's part of the data exchange over TCP: every descriptor carries the data address of
 * each subtask index's task executor, and a deployment's end releases the channels on every task
 * executor that has a data address.
 */
class JobMasterDataAddressesTest {
    private static final String A = "10.0.0.1:7001";
    private static final String B = "10.0.0.2:7001";

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor mainThread = new ManuallyTriggeredMainThreadExecutor("jm", clock);

    @Test
    void descriptorsCarryEverySubtasksDataAddressAndTheEndOfARoundReleasesTheChannelsEverywhere() {
        AddressedGateway a = new AddressedGateway("te-a", A);
        AddressedGateway b = new AddressedGateway("te-b", B);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .setRestartStrategy(new FixedDelay(3, Duration.ofSeconds(1))).setCheckpointDir(root.toString());
        env.fromSequence(0, 100).keyBy(v -> v % 4).map(v -> v).addSink(v -> { });
        JobGraph graph = env.buildJobGraph("data addresses");
        CheckpointStorage storage = new CheckpointStorage(new LocalFileBlobStore(root), new SimpleMeterRegistry());
        List<Integer> releasedByShuffleMaster = new CopyOnWriteArrayList<>();
        JobMasterServices services = new JobMasterServices(storage,
                new StandaloneCompletedCheckpointStore(graph.jobId(), 1, storage), new InMemoryCheckpointIdCounter(1),
                (jobId, deployment) -> releasedByShuffleMaster.add(deployment), List.of(a, b), new ManualExecutor(), clock,
                RestartStrategies.create(new FixedDelay(3, Duration.ofSeconds(1)), clock, new Random(7)), () -> true);
        JobMaster jobMaster = new JobMaster(graph, services, mainThread, s -> { });
        mainThread.execute(jobMaster::start);
        mainThread.triggerAll();

        List<TaskDeploymentDescriptor> all = new ArrayList<>(a.delegate.submitted());
        all.addAll(b.delegate.submitted());
        assertThat(all).hasSize(graph.numberOfSubtasks()).allSatisfy(d -> {
            assertThat(d.dataAddresses()).containsExactly(A, B);
            assertThat(d.isRemote(d.subtaskIndex())).isFalse();
            assertThat(d.isRemote(1 - d.subtaskIndex())).isTrue();
        });
        assertThat(a.delegate.submitted()).allSatisfy(d -> assertThat(d.subtaskIndex()).isZero());

        for (TaskDeploymentDescriptor d : all) {
            jobMaster.updateTaskExecutionState(new TaskExecutionState(d.attemptId(), ExecutionState.FINISHED, null));
        }
        mainThread.triggerAll();

        int deployment = all.get(0).attemptId().deployment();
        assertThat(releasedByShuffleMaster).containsExactly(deployment);
        assertThat(a.released).containsExactly(graph.jobId() + "/" + deployment);
        assertThat(b.released).containsExactly(graph.jobId() + "/" + deployment);
    }

    @Test
    void theOldConstructorMeansEveryChannelInMemory() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2);
        env.fromSequence(0, 10).keyBy(v -> v % 4).map(v -> v).addSink(v -> { });
        JobGraph graph = env.buildJobGraph("old");
        TaskDeploymentDescriptor d = new TaskDeploymentDescriptor(graph,
                new ExecutionAttemptId(graph.jobId(), graph.vertices().get(0).id(), 0, 1), 0, null);
        assertThat(d.dataAddresses()).isEmpty();
        assertThat(d.isRemote(1)).isFalse();
        TaskDeploymentDescriptor someInMemory = new TaskDeploymentDescriptor(graph, d.attemptId(), 0, null,
                Arrays.asList(A, null));
        assertThat(someInMemory.isRemote(1)).as("a peer without data address is in memory").isFalse();
    }

    /** A recording gateway with a data address. */
    private static final class AddressedGateway implements TaskExecutorGateway {
        final TestingTaskExecutorGateway delegate;
        final String address;
        final List<String> released = new CopyOnWriteArrayList<>();

        AddressedGateway(String id, String address) {
            this.delegate = new TestingTaskExecutorGateway(id, 1);
            this.address = address;
        }

        @Override
        public String id() {
            return delegate.id();
        }

        @Override
        public int numberOfSlots() {
            return 1;
        }

        @Override
        public String dataAddress() {
            return address;
        }

        @Override
        public CompletableFuture<Acknowledge> submitTask(TaskDeploymentDescriptor descriptor, JobMasterGateway jobMaster) {
            return delegate.submitTask(descriptor, jobMaster);
        }

        @Override
        public CompletableFuture<Acknowledge> cancelTask(ExecutionAttemptId task) {
            return delegate.cancelTask(task);
        }

        @Override
        public void triggerCheckpoint(ExecutionAttemptId task, long checkpointId, long timestampMillis) {
            delegate.triggerCheckpoint(task, checkpointId, timestampMillis);
        }

        @Override
        public void triggerSavepoint(ExecutionAttemptId task, long checkpointId, long timestampMillis, boolean stop) {
            delegate.triggerSavepoint(task, checkpointId, timestampMillis, stop);
        }

        @Override
        public void notifyCheckpointComplete(ExecutionAttemptId task, long checkpointId) {
            delegate.notifyCheckpointComplete(task, checkpointId);
        }

        @Override
        public CompletableFuture<List<TaskMetrics>> requestTaskMetrics(JobId jobId) {
            return delegate.requestTaskMetrics(jobId);
        }

        @Override
        public void releaseChannels(JobId jobId, int deployment) {
            released.add(jobId + "/" + deployment);
        }
    }
}
