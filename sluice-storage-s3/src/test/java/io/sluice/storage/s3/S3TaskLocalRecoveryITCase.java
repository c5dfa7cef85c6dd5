package io.sluice.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.config.StateBackendType;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.storage.BlobStore;
import io.sluice.storage.s3.testing.TcpFaultProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task-local recovery with checkpoints on S3, on the heap (in-memory copies of state files) and in RocksDB
 * with incremental checkpoints (local files of its table, manifest and option files): a task failover while S3
 * refuses every connection restores from the task executors' local copies, and the S3 request counter does not
 * move between the failure and the first record the restored task processes.
 */
class S3TaskLocalRecoveryITCase {
    private static final int KEYS = 8;
    private static final long RECORDS = 40_000;
    /** Set by the test to make the counting function fail once; the S3 store is read from the function. */
    static final AtomicBoolean ARMED = new AtomicBoolean();
    static final AtomicReference<S3BlobStore> STORE = new AtomicReference<>();
    static final AtomicLong CALLS_AT_FAILURE = new AtomicLong(-1);
    static final AtomicLong CALLS_AT_FIRST_RESTORED_RECORD = new AtomicLong(-1);

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(StateBackendType.class)
    void aFailoverWhileS3RefusesConnectionsRestoresLocallyWithoutAnyS3Request(StateBackendType backend) throws Exception {
        ARMED.set(false);
        CALLS_AT_FAILURE.set(-1);
        CALLS_AT_FIRST_RESTORED_RECORD.set(-1);
        AtomicReference<BlobStore> raw = new AtomicReference<>();
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try (S3ProxyServer server = S3ProxyServer.start("bucket");
             TcpFaultProxy proxy = new TcpFaultProxy("127.0.0.1", server.port());
             LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha"))
                     .configuration(S3ProxyServer.clientConfiguration(proxy.httpEndpoint()))
                     .blobStoreDecorator(store -> {
                         raw.set(store);
                         return store;
                     }).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofSeconds(2)).setCheckpointDir("s3://bucket/checkpoints")
                    .setTolerableCheckpointFailures(1_000).setLocalRecovery(true)
                    .setInlineStateThreshold(0) // state files and their local copies are the subject here
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(5, Duration.ZERO))
                    .setStateBackend(backend).setIncrementalCheckpoints(true); // the heap ignores incremental
            env.fromSource(SequenceSource.bounded(0, RECORDS - 1).withRate(8_000), "numbers")
                    .keyBy(new KeyedCountingJob.ModKey(KEYS))
                    .map(new CountAndFailWhenArmed()).returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                    .addSink(sink, "results");
            JobId id = cluster.submit(env.buildJobGraph("s3 local recovery"));
            STORE.set((S3BlobStore) raw.get());

            await().atMost(Duration.ofSeconds(30)).until(() ->
                    cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 1);
            proxy.refuseConnections();
            ARMED.set(true);

            await().atMost(Duration.ofSeconds(30)).until(() -> CALLS_AT_FIRST_RESTORED_RECORD.get() >= 0);
            assertThat(CALLS_AT_FIRST_RESTORED_RECORD.get())
                    .as("S3 requests between the failure and the first record of the restored task")
                    .isEqualTo(CALLS_AT_FAILURE.get());
            long hits = cluster.taskExecutors().stream().mapToLong(te -> te.localState().hits()).sum();
            if (backend == StateBackendType.HEAP) {
                assertThat(hits).as("one state file per keyed subtask").isEqualTo(2);
            } else {
                assertThat(hits).as("per keyed subtask its table files and manifest, current and options files")
                        .isGreaterThanOrEqualTo(2 * 4);
            }

            JobResult result = cluster.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
            Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
            assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));
            proxy.heal();
        } finally {
            sink.release();
            STORE.set(null);
        }
    }

    /** Counts per key; throws once when armed, recording the S3 request count then and after the restore. */
    static final class CountAndFailWhenArmed implements MapFunction<Long, Tuple2<Long, Long>>, RichFunction {
        private transient ValueState<Long> count;
        private transient boolean restored;
        private transient boolean first;

        @Override
        public void open(RuntimeContext context) {
            count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
            restored = context.attemptNumber() > 0;
            first = true;
        }

        @Override
        public Tuple2<Long, Long> map(Long value) {
            if (restored && first) {
                first = false;
                CALLS_AT_FIRST_RESTORED_RECORD.compareAndSet(-1, STORE.get().apiCalls());
            }
            Long c = count.value();
            long next = c == null ? 1 : c + 1;
            count.update(next);
            if (ARMED.compareAndSet(true, false)) {
                CALLS_AT_FAILURE.set(STORE.get().apiCalls());
                throw new IllegalStateException("failure injected while S3 refuses connections");
            }
            return Tuple2.of(value % KEYS, next);
        }
    }
}
