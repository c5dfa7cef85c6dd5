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
import io.sluice.storage.BlobContent;
import io.sluice.storage.BlobStore;
import io.sluice.storage.ForwardingBlobStore;
import io.sluice.storage.ObjectAddress;
import io.sluice.storage.s3.testing.TcpFaultProxy;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task-local recovery with checkpoints on S3, on the heap (in-memory copies of state files) and in RocksDB
 * with incremental checkpoints (local files of its table, manifest and option files): a task failover while S3
 * refuses every connection restores from the task executors' local copies: nothing reads from S3 between the
 * failure and the first record each restored subtask processes. Writes may happen then: an upload of the checkpoint
 * running at the failure fails against the refusing S3 and tries to delete what it wrote (one request more, which
 * a count of all S3 requests once took for a read of the restore), and a checkpoint may be triggered before a
 * restored subtask's first record.
 */
class S3TaskLocalRecoveryITCase {
    private static final int KEYS = 8;
    private static final long RECORDS = 40_000;
    private static final int PARALLELISM = 2;
    private static final Set<String> READS = Set.of("get", "openRead", "exists", "list");
    /** Set by the test to make the counting function fail once. */
    static final AtomicBoolean ARMED = new AtomicBoolean();
    /** Open from the injected failure until every restored subtask has processed a record. */
    static final AtomicBoolean WINDOW = new AtomicBoolean();
    static final AtomicInteger RESTORED_SUBTASKS_RUNNING = new AtomicInteger();
    /** Every storage call made while {@link #WINDOW} was open: operation, path, thread. */
    static final Queue<String> CALLS_IN_WINDOW = new ConcurrentLinkedQueue<>();

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(StateBackendType.class)
    void aFailoverWhileS3RefusesConnectionsRestoresLocallyWithoutReadingFromS3(StateBackendType backend) throws Exception {
        ARMED.set(false);
        WINDOW.set(false);
        RESTORED_SUBTASKS_RUNNING.set(0);
        CALLS_IN_WINDOW.clear();
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try (S3ProxyServer server = S3ProxyServer.start("bucket");
             TcpFaultProxy proxy = new TcpFaultProxy("127.0.0.1", server.port());
             LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha"))
                     .configuration(S3ProxyServer.clientConfiguration(proxy.httpEndpoint()))
                     .blobStoreDecorator(RecordingStore::new).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(PARALLELISM)
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

            await().atMost(Duration.ofSeconds(30)).until(() ->
                    cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 1);
            proxy.refuseConnections();
            ARMED.set(true);

            await().atMost(Duration.ofSeconds(30)).until(() -> RESTORED_SUBTASKS_RUNNING.get() == PARALLELISM);
            List<String> calls = List.copyOf(CALLS_IN_WINDOW);
            System.out.println("Storage calls between the failure and the restored subtasks' first records (" + backend
                    + "): " + calls);
            assertThat(calls).as("storage calls between the failure and the restored subtasks' first records")
                    .noneMatch(call -> READS.contains(call.substring(0, call.indexOf(' '))));
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
        }
    }

    /** Counts per key; throws once when armed, opening the window that a restored subtask's first record closes. */
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
                if (RESTORED_SUBTASKS_RUNNING.incrementAndGet() == PARALLELISM) {
                    WINDOW.set(false);
                }
            }
            Long c = count.value();
            long next = c == null ? 1 : c + 1;
            count.update(next);
            if (ARMED.compareAndSet(true, false)) {
                WINDOW.set(true);
                throw new IllegalStateException("failure injected while S3 refuses connections");
            }
            return Tuple2.of(value % KEYS, next);
        }
    }

    /** Logs every call made while {@link #WINDOW} is open. */
    static final class RecordingStore extends ForwardingBlobStore {
        RecordingStore(BlobStore delegate) {
            super(delegate);
        }

        private static void record(String op, String path) {
            if (WINDOW.get()) {
                CALLS_IN_WINDOW.add(op + " " + path + " on " + Thread.currentThread().getName());
            }
        }

        @Override
        public void put(String path, byte[] data) {
            record("put", path);
            super.put(path, data);
        }

        @Override
        public void put(String path, BlobContent content) {
            record("put", path);
            super.put(path, content);
        }

        @Override
        public byte[] get(String path) {
            record("get", path);
            return super.get(path);
        }

        @Override
        public InputStream openRead(String path) {
            record("openRead", path);
            return super.openRead(path);
        }

        @Override
        public long copyObject(ObjectAddress source, String path) {
            record("copyObject", path);
            return super.copyObject(source, path);
        }

        @Override
        public boolean exists(String path) {
            record("exists", path);
            return super.exists(path);
        }

        @Override
        public List<String> list(String prefix) {
            record("list", prefix);
            return super.list(prefix);
        }

        @Override
        public void delete(String path) {
            record("delete", path);
            super.delete(path);
        }

        @Override
        public void deleteRecursively(String prefix) {
            record("deleteRecursively", prefix);
            super.deleteRecursively(prefix);
        }
    }
}
