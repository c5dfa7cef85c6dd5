package io.sluice.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.InMemoryCheckpointIdCounter;
import io.sluice.checkpoint.StandaloneCompletedCheckpointStore;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.graph.JobGraph;
import io.sluice.restart.RestartStrategies;
import io.sluice.rpc.remote.FencedGateway;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job master's fencing token, which fences its RPC export (task executors' state updates and
 * checkpoint acknowledgements reach it only under it): its job leader session while that session
 * may still write, nothing before it is set or once the session ended.
 */
class JobMasterFencingTest {
    @TempDir
    Path root;

    @Test
    void theTokenIsTheJobLeaderSessionOnlyWhileItLeads() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .setCheckpointDir(root.toString());
        env.fromSequence(0, 10).addSink(v -> { });
        JobGraph graph = env.buildJobGraph("fencing");
        CheckpointStorage storage = new CheckpointStorage(new LocalFileBlobStore(root), new SimpleMeterRegistry());
        ManualClock clock = new ManualClock();
        AtomicBoolean leads = new AtomicBoolean(true);
        JobMasterServices services = new JobMasterServices(storage,
                new StandaloneCompletedCheckpointStore(graph.jobId(), 1, storage), new InMemoryCheckpointIdCounter(1),
                (jobId, deployment) -> { }, List.of(new TestingTaskExecutorGateway("te", 1)), Runnable::run, clock,
                RestartStrategies.create(new RestartStrategyConfig.NoRestart(), clock, new Random(1)), leads::get);
        JobMaster jobMaster = new JobMaster(graph, services, new ManuallyTriggeredMainThreadExecutor("jm", clock));

        assertThat(jobMaster).isInstanceOf(FencedGateway.class);
        assertThat(jobMaster.fencingToken()).as("no session set: refuses remote calls").isNull();
        UUID session = UUID.randomUUID();
        jobMaster.fenceRemoteCallsWith(session);
        assertThat(jobMaster.fencingToken()).isEqualTo(session);
        leads.set(false); // the job's leadership was revoked
        assertThat(jobMaster.fencingToken()).as("a deposed job master's export refuses every call").isNull();
    }
}
