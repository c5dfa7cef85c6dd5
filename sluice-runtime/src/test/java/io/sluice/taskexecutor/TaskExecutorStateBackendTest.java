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
import io.sluice.network.LocalShuffleService;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.state.KeyGroups;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.RecordingJobMasterGateway;
import io.sluice.util.ManualClock;
import io.sluice.util.SystemClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The keyed-state-backend seam: a task executor gives the factory it was built with to its tasks,
 * and each task with keyed state asks it once for its backend, describing the job, the subtask and
 * its key groups. Tasks run on their own threads; the main thread is run by the test.
 */
@Timeout(60)
class TaskExecutorStateBackendTest {
    @TempDir
    Path root;

    private final ManuallyTriggeredMainThreadExecutor main =
            new ManuallyTriggeredMainThreadExecutor("taskexecutor-test", new ManualClock());
    private final ExecutorService io = Executors.newCachedThreadPool();
    private final RecordingJobMasterGateway jobMaster = new RecordingJobMasterGateway(main);
    private final CheckpointStorageRegistry storages = new CheckpointStorageRegistry(new SimpleMeterRegistry());
    private final List<KeyedStateBackendSpec> asked = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() {
        io.shutdownNow();
        storages.close();
    }

    @Test
    void eachTaskWithKeyedStateGetsItsBackendFromTheTaskExecutorsFactory() {
        KeyedStateBackendFactory recordingHeap = spec -> {
            asked.add(spec);
            return KeyedStateBackendFactory.heap().create(spec);
        };
        TaskExecutor taskExecutor = new TaskExecutor("te-test", 2, main, io, new LocalShuffleService(), storages, null,
                SystemClock.INSTANCE, recordingHeap);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .setCheckpointDir(root.toString());
        env.fromSequence(0, 999).keyBy(v -> v % 4).reduce(Long::sum).addSink(v -> { });
        JobGraph graph = env.buildJobGraph("keyed");
        assertThat(graph.vertices()).as("source, keyed reduce").hasSize(2);

        for (JobVertex v : graph.vertices()) {
            taskExecutor.submitTask(new TaskDeploymentDescriptor(graph, new ExecutionAttemptId(graph.jobId(), v.id(), 0, 1),
                    0, null), jobMaster);
        }
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(5)).until(() -> {
            main.triggerAll();
            return jobMaster.reports().stream().filter(r -> r.state() == ExecutionState.FINISHED).count() == 2;
        });

        JobVertex keyed = graph.vertices().stream().filter(JobVertex::hasKeyedState).findFirst().orElseThrow();
        assertThat(asked).singleElement().satisfies(spec -> {
            assertThat(spec.vertexId()).isEqualTo(keyed.id());
            assertThat(spec.subtaskIndex()).isZero();
            assertThat(spec.jobId()).isEqualTo(graph.jobId());
            assertThat(spec.jobConfig()).isEqualTo(graph.config());
            assertThat(spec.keyGroupRange()).isEqualTo(KeyGroups.rangeForSubtask(0, keyed.maxParallelism(), 1));
            assertThat(spec.maxParallelism()).isEqualTo(keyed.maxParallelism());
            assertThat(spec.taskName()).isEqualTo(keyed.name() + " (1/1)");
        });
        assertThat(jobMaster.failures()).isEmpty();
    }
}
