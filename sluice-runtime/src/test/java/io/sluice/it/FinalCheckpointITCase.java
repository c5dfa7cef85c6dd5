package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.Collector;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.Committer;
import io.sluice.api.sink.SinkWriter;
import io.sluice.api.sink.TwoPhaseCommitSink;
import io.sluice.api.source.Source;
import io.sluice.api.source.SourceReader;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.api.DataStreamSink;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The end of a bounded input with a two-phase-commit sink (issue 20): sink subtask 0 ends its input
 * while subtask 1 still runs, and subtask 1 then fails once, before any later checkpoint. The job
 * restores a checkpoint in which sink subtask 0 still ran, so its last output is written again; it must
 * become visible only once. A sink that commits its last output when its input ends (without a final
 * checkpoint) makes it visible twice.
 *
 * <p>The sink writes to a test-only {@link TransactionalStore}: records become visible only on commit,
 * and a commit names its transaction, so committing it again changes nothing. Source subtask 0 emits
 * half its records, waits for a first commit (a completed checkpoint), emits the rest and ends; source
 * subtask 1 emits slowly, throws once as soon as sink subtask 0's writer saw the end of its input, and
 * ends only after that failure. Gates, not timing, order these steps.
 */
class FinalCheckpointITCase {
    private static final Map<String, TransactionalStore> STORES = new ConcurrentHashMap<>();
    private static final long FAST_RECORDS = 1_000;
    private static final long SLOW_RECORDS = 1_500;

    @TempDir
    Path dir;
    private final String id = UUID.randomUUID().toString();

    @AfterEach
    void release() {
        STORES.remove(id);
    }

    /**
     * @param chained   whether the sink runs in its source's task (the source task awaits the final checkpoint)
     *                  or in a task of its own reading it through the network (its input gate ends)
     * @param remoteRpc whether the job master and the task executors talk over loopback TCP (the report that a
     *                  task awaits its final checkpoint, and the triggers, cross the wire)
     */
    @ParameterizedTest(name = "sink chained to its source: {0}, remote RPC: {1}")
    @CsvSource({"false, false", "true, false", "false, true"})
    void aFailureAfterOneSinkSubtaskEndedItsInputLeavesEveryRecordCommittedExactlyOnce(boolean chained,
                                                                                      boolean remoteRpc)
            throws Exception {
        TransactionalStore store = new TransactionalStore();
        STORES.put(id, store);
        try (LocalCluster cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(2)
                .remoteRpc(remoteRpc).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(300))
                    .setCheckpointDir(dir.resolve("checkpoints").toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(3, Duration.ofMillis(10)));
            DataStreamSink<Long> sink = env.fromSource(new TwoSpeedSource(id), "two speeds")
                    .sinkTo(new StoreSink(id), "store");
            if (!chained) {
                sink.disableChaining(); // the sink reads its source through the network: its input gate ends
            }
            JobResult result = cluster.executeAndWait(env.buildJobGraph("final checkpoint"), Duration.ofMinutes(2));
            assertThat(result.status()).as("%s", result.failureMessage()).isEqualTo(JobStatus.FINISHED);
        }
        assertThat(store.failed.get()).as("subtask 1 failed once, after sink subtask 0 ended its input").isTrue();
        assertThat(store.endOfInputs(0)).as("sink subtask 0 ran to its end again after the restore").isEqualTo(2);

        List<Long> committed = store.committed();
        Map<Long, Long> counts = committed.stream().collect(Collectors.groupingBy(v -> v, Collectors.counting()));
        Map<Long, Long> duplicates = new HashMap<>();
        counts.forEach((v, n) -> {
            if (n > 1) {
                duplicates.put(v, n);
            }
        });
        assertThat(duplicates).as("records committed more than once (%d of %d committed records)",
                committed.size() - counts.size(), committed.size()).isEmpty();
        assertThat(counts.keySet()).as("every record committed").hasSize((int) (FAST_RECORDS + SLOW_RECORDS));
        assertThat(Collections.min(counts.keySet())).isZero();
        assertThat(Collections.max(counts.keySet())).isEqualTo(FAST_RECORDS + SLOW_RECORDS - 1);
    }

    /**
     * A store where written records become visible only when their transaction commits; committing a
     * transaction again is a no-op. Also the test's signals between the sink and the source (one JVM).
     */
    static final class TransactionalStore {
        private final Set<String> committedTransactions = ConcurrentHashMap.newKeySet();
        private final List<Long> visible = Collections.synchronizedList(new ArrayList<>());
        private final Map<Integer, AtomicInteger> endOfInputs = new ConcurrentHashMap<>();
        final AtomicBoolean failed = new AtomicBoolean();

        void commit(String transaction, List<Long> records) {
            synchronized (this) {
                if (committedTransactions.add(transaction)) {
                    visible.addAll(records);
                }
            }
        }

        boolean anyCommitted() {
            return !committedTransactions.isEmpty();
        }

        void endOfInput(int subtask) {
            endOfInputs.computeIfAbsent(subtask, s -> new AtomicInteger()).incrementAndGet();
        }

        int endOfInputs(int subtask) {
            AtomicInteger n = endOfInputs.get(subtask);
            return n == null ? 0 : n.get();
        }

        List<Long> committed() {
            synchronized (visible) {
                return List.copyOf(visible);
            }
        }
    }

    /**
     * Subtask 0: {@code [0, FAST_RECORDS)}, the second half only after a first commit. Subtask 1:
     * {@code [FAST_RECORDS, FAST_RECORDS + SLOW_RECORDS)}, one record per call with a short park; throws once
     * when sink subtask 0 saw its end of input, and does not end before.
     */
    record TwoSpeedSource(String id) implements Source<Long> {
        @Override
        public SourceReader<Long> createReader(int subtaskIndex, int parallelism) {
            return new Reader(STORES.get(id), subtaskIndex);
        }

        @Override
        public boolean isBounded() {
            return true;
        }

        @Override
        public TypeSerializer<Long> serializer() {
            return Serializers.LONG;
        }
    }

    private static final class Reader implements SourceReader<Long> {
        private final TransactionalStore store;
        private final int subtask;
        private long emitted;

        Reader(TransactionalStore store, int subtask) {
            this.store = store;
            this.subtask = subtask;
        }

        @Override
        public int emit(Collector<Long> out, int maxRecords) {
            return subtask == 0 ? emitFast(out, maxRecords) : emitSlow(out);
        }

        private int emitFast(Collector<Long> out, int maxRecords) {
            if (emitted == FAST_RECORDS) {
                return END_OF_INPUT;
            }
            if (emitted >= FAST_RECORDS / 2 && !store.anyCommitted()) {
                LockSupport.parkNanos(1_000_000); // until a checkpoint completed and its commit ran
                return 0;
            }
            long until = emitted < FAST_RECORDS / 2 ? FAST_RECORDS / 2 : FAST_RECORDS;
            int n = 0;
            while (emitted < until && n < maxRecords) {
                out.collect(emitted++);
                n++;
            }
            return n;
        }

        private int emitSlow(Collector<Long> out) {
            if (store.endOfInputs(0) > 0 && store.failed.compareAndSet(false, true)) {
                throw new IllegalStateException("Injected failure of source subtask 1 after sink subtask 0 ended");
            }
            if (emitted == SLOW_RECORDS) {
                if (store.failed.get()) {
                    return END_OF_INPUT;
                }
                LockSupport.parkNanos(1_000_000); // not before the failure
                return 0;
            }
            LockSupport.parkNanos(500_000);
            out.collect(FAST_RECORDS + emitted++);
            return 1;
        }

        @Override
        public byte[] snapshotPosition() {
            DataOutputBuffer buffer = new DataOutputBuffer(8);
            buffer.writeLong(emitted);
            return buffer.toByteArray();
        }

        @Override
        public void restorePosition(byte[] position) {
            emitted = new DataInputBuffer(position).readLong();
        }
    }

    /** Committables are {@code <transaction>|<record>,<record>,...}; a transaction per pre-commit. */
    record StoreSink(String id) implements TwoPhaseCommitSink<Long, String> {
        @Override
        public SinkWriter<Long, String> createWriter(RuntimeContext context, List<String> restored) {
            TransactionalStore store = STORES.get(id);
            int subtask = context.subtaskIndex();
            return new SinkWriter<>() {
                private final List<Long> buffer = new ArrayList<>();

                @Override
                public void write(Long value) {
                    buffer.add(value);
                }

                @Override
                public List<String> preCommit(long checkpointId) {
                    if (buffer.isEmpty()) {
                        return List.of();
                    }
                    String c = UUID.randomUUID() + "|" + buffer.stream().map(String::valueOf)
                            .collect(Collectors.joining(","));
                    buffer.clear();
                    return List.of(c);
                }

                @Override
                public List<String> endOfInput() {
                    List<String> last = preCommit(Long.MAX_VALUE);
                    store.endOfInput(subtask);
                    return last;
                }
            };
        }

        @Override
        public Committer<String> createCommitter(RuntimeContext context) {
            TransactionalStore store = STORES.get(id);
            return committable -> {
                int bar = committable.indexOf('|');
                List<Long> records = Arrays.stream(committable.substring(bar + 1).split(","))
                        .map(Long::parseLong).toList();
                store.commit(committable.substring(0, bar), records);
            };
        }

        @Override
        public TypeSerializer<String> committableSerializer() {
            return Serializers.STRING;
        }
    }
}
