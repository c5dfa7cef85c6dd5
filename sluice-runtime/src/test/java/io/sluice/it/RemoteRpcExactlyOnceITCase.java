package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.UnknownJobException;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.rpc.remote.RpcService;
import io.sluice.protocol.TaskExecutorGateway;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link ExactlyOnceITCase} with the job masters reaching the task executors only over network RPC
 * ({@code LocalCluster.Builder.remoteRpc(true)}: each task executor on its own RPC service over
 * loopback TCP, the slot pool holding remote proxies, the job master passed to its tasks by
 * reference, so deployments, cancellations, checkpoint triggers and notifications go one way and
 * state updates, acknowledgements and task failures the other). Seeded injected failures; the final
 * count per key must be exact ({@link InjectedFailureCountingScenario}). Fewer seeds than the local
 * suite: the RPC is what is under test here.
 */
class RemoteRpcExactlyOnceITCase {
    private static final int KEYS = InjectedFailureCountingScenario.KEYS;
    private static final InjectedFailureCountingScenario.Draw DRAW =
            new InjectedFailureCountingScenario.Draw(20_000, 0, 3);
    private static LocalCluster cluster;
    private static long restoredKeys;
    private static long completedCheckpoints;

    @TempDir
    static Path checkpoints;

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(2).remoteRpc(true).build();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
        // Checkpoints need every task's acknowledgement over RPC; a short run may end before one completes.
        assertThat(completedCheckpoints).as("checkpoints completed, over all runs").isPositive();
        assertThat(restoredKeys).as("keys restored from checkpoints, over all runs").isPositive();
    }

    @Test
    void theSlotPoolHoldsOnlyRemoteProxies() throws Exception {
        JobId probe = JobId.generate();
        List<TaskExecutorGateway> slots = cluster.slotPool().allocate(probe, cluster.slotPool().totalSlots());
        try {
            assertThat(slots).hasSize(4).allMatch(RpcService::isRemote);
            assertThat(slots.stream().map(TaskExecutorGateway::id).distinct()).containsExactlyInAnyOrder("taskexecutor-0",
                    "taskexecutor-1");
            assertThat(slots).allMatch(g -> g.numberOfSlots() == 2);
        } finally {
            cluster.slotPool().release(probe);
        }
    }

    /**
     * The dispatcher over RPC, as a client process would use it: submit a job graph (user code as
     * bytes), list jobs, job details, the graph (an {@code Optional}), the result; an unknown job
     * fails with the Dispatcher's own exception type.
     */
    @Test
    void theDispatcherAnswersOverRpc() throws Exception {
        try (RpcService server = RpcService.builder().bind("127.0.0.1", 0).start();
             RpcService client = RpcService.builder().bind("127.0.0.1", 0).start()) {
            server.expose("dispatcher", DispatcherGateway.class, cluster.dispatcher(), null);
            DispatcherGateway remote = client.remoteGateway(server.address(), "dispatcher", DispatcherGateway.class,
                    null, Map.of());

            CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
            try {
                StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                        .enableCheckpointing(Duration.ofMillis(20))
                        .setCheckpointDir(checkpoints.resolve("dispatcher-over-rpc").toString());
                KeyedCountingJob.build(env, SequenceSource.bounded(0, 9_999), KEYS, InjectedFailures.none(), sink);
                JobId id = remote.submitJob(env.buildJobGraph("submitted over RPC")).get(30, TimeUnit.SECONDS);
                assertThat(remote.listJobs().get(10, TimeUnit.SECONDS)).anyMatch(j -> j.jobId().equals(id));
                assertThat(remote.requestJobDetails(id).get(10, TimeUnit.SECONDS).jobId()).isEqualTo(id);
                JobResult result = remote.requestJobResult(id).get(1, TimeUnit.MINUTES);
                assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
                assertThat(CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1))
                        .isEqualTo(KeyedCountingJob.expectedCounts(10_000, KEYS));
                assertThat(remote.requestJobGraph(id).get(10, TimeUnit.SECONDS)).isInstanceOf(java.util.Optional.class);
                assertThatThrownBy(() -> remote.requestJobDetails(JobId.generate()).get(10, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(UnknownJobException.class);
            } finally {
                sink.release();
            }
        }
    }

    static Stream<Arguments> seedsAndInlineThresholds() {
        return InjectedFailureCountingScenario.seedsAndInlineThresholds(20261201L, 4);
    }

    /** The scenario checks that the job details report the task failures, which here arrive over RPC. */
    @ParameterizedTest(name = "seed {0}, inline-state threshold {1}")
    @MethodSource("seedsAndInlineThresholds")
    void keyedCountsAreExactAfterInjectedFailuresOverRpc(long seed, int inlineStateThreshold) throws Exception {
        InjectedFailureCountingScenario.Outcome outcome = InjectedFailureCountingScenario.run(cluster, DRAW, seed,
                inlineStateThreshold, checkpoints.resolve("seed-" + seed + "-inline-" + inlineStateThreshold),
                "exactly-once over RPC, seed " + seed);
        completedCheckpoints += outcome.completedCheckpoints();
        restoredKeys += outcome.restoredKeys();
    }
}
