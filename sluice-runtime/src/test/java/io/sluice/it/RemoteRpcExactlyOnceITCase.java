package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.CheckpointingOptions;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.dispatcher.DispatcherGateway;
import io.sluice.dispatcher.UnknownJobException;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.jobmaster.JobDetails;
import io.sluice.jobmaster.JobResult;
import io.sluice.jobmaster.JobStatus;
import io.sluice.rpc.remote.RpcService;
import io.sluice.taskexecutor.TaskExecutorGateway;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
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
 * count per key must be exact. Fewer seeds than the local suite: the RPC is what is under test here.
 */
class RemoteRpcExactlyOnceITCase {
    private static final int KEYS = 16;
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
        long base = Long.getLong("sluice.test.seed", 20261201L);
        return LongStream.range(0, 4).boxed().flatMap(i -> Stream.of(
                Arguments.of(base + i, CheckpointingOptions.DEFAULT_INLINE_STATE_THRESHOLD),
                Arguments.of(base + i, 0)));
    }

    @ParameterizedTest(name = "seed {0}, inline-state threshold {1}")
    @MethodSource("seedsAndInlineThresholds")
    void keyedCountsAreExactAfterInjectedFailuresOverRpc(long seed, int inlineStateThreshold) throws Exception {
        Random random = new Random(seed);
        long records = 20_000 + random.nextInt(20_000);
        int parallelism = 1 + random.nextInt(2);
        TreeSet<Long> failAt = new TreeSet<>();
        int failures = 1 + random.nextInt(3);
        while (failAt.size() < failures) {
            failAt.add((long) random.nextInt((int) records));
        }
        System.out.printf("seed %d: %d records, parallelism %d, failures at %s%n", seed, records, parallelism, failAt);

        InjectedFailures plan = InjectedFailures.at(failAt);
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create()
                    .setParallelism(parallelism)
                    .setInlineStateThreshold(inlineStateThreshold)
                    .enableCheckpointing(Duration.ofMillis(5 + random.nextInt(20)))
                    .setCheckpointDir(checkpoints.resolve("seed-" + seed + "-inline-" + inlineStateThreshold).toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(100, Duration.ofMillis(random.nextInt(10))));
            MutableCountingJob.Run run = MutableCountingJob.build(env,
                    SequenceSource.bounded(0, records - 1).withRate(150_000 + random.nextInt(150_000)), KEYS, plan, sink);
            JobId id = cluster.submit(env.buildJobGraph("exactly-once over RPC, seed " + seed));
            JobResult result = cluster.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);

            assertThat(result.status()).as("seed %d: %s", seed, result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
            assertThat(plan.thrown()).as("seed %d: injected failures", seed).isEqualTo(failures);
            Map<Long, Long> finalState = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
            assertThat(finalState).as("seed %d: final count per key", seed)
                    .isEqualTo(KeyedCountingJob.expectedCounts(records, KEYS));

            JobDetails details = cluster.dispatcher().requestJobDetails(id).get(10, TimeUnit.SECONDS);
            assertThat(details.restarts()).as("seed %d: restarts", seed).isBetween(1, failures);
            completedCheckpoints += details.checkpoints().completed();
            assertThat(details.recentFailures()).as("seed %d: task failures reported over RPC", seed).isNotEmpty();
            long restored = run.restoredKeys();
            restoredKeys += restored;
            run.release();
            System.out.printf("seed %d: FINISHED over RPC, %d restarts, %d checkpoints, %d keys restored%n", seed,
                    details.restarts(), details.checkpoints().completed(), restored);
        } finally {
            plan.release();
            sink.release();
        }
    }
}
