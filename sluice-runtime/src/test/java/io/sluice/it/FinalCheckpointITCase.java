package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.Collector;
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
import io.sluice.testutil.CommittingSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * <p>The sink ({@link CommittingSink}) writes to a test-only transactional store: records become visible only
 * on commit, and a commit names its transaction, so committing it again changes nothing. Source subtask 0 emits
 * half its records, waits for a first commit (a completed checkpoint), emits the rest and ends; source
 * subtask 1 emits slowly, throws once as soon as sink subtask 0's writer saw the end of its input, and
 * ends only after that failure. Gates, not timing, order these steps.
 */
class FinalCheckpointITCase {
    /** Whether source subtask 1 failed yet, by store id (the source travels serialized in the job graph). */
    private static final Map<String, AtomicBoolean> FAILED = new ConcurrentHashMap<>();
    private static final long FAST_RECORDS = 1_000;
    private static final long SLOW_RECORDS = 1_500;

    @TempDir
    Path dir;
    private final CommittingSink.Store store = CommittingSink.store();

    @AfterEach
    void release() {
        FAILED.remove(store.id());
        store.close();
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
        AtomicBoolean failed = new AtomicBoolean();
        FAILED.put(store.id(), failed);
        try (LocalCluster cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(2)
                .remoteRpc(remoteRpc).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(300))
                    .setCheckpointDir(dir.resolve("checkpoints").toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(3, Duration.ofMillis(10)));
            DataStreamSink<Long> sink = env.fromSource(new TwoSpeedSource(store.id()), "two speeds")
                    .sinkTo(new CommittingSink(store.id()), "store");
            if (!chained) {
                sink.disableChaining(); // the sink reads its source through the network: its input gate ends
            }
            JobResult result = cluster.executeAndWait(env.buildJobGraph("final checkpoint"), Duration.ofMinutes(2));
            assertThat(result.status()).as("%s", result.failureMessage()).isEqualTo(JobStatus.FINISHED);
        }
        assertThat(failed.get()).as("subtask 1 failed once, after sink subtask 0 ended its input").isTrue();
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
     * Subtask 0: {@code [0, FAST_RECORDS)}, the second half only after a first commit. Subtask 1:
     * {@code [FAST_RECORDS, FAST_RECORDS + SLOW_RECORDS)}, one record per call with a short park; throws once
     * when sink subtask 0 saw its end of input, and does not end before.
     */
    record TwoSpeedSource(String storeId) implements Source<Long> {
        @Override
        public SourceReader<Long> createReader(int subtaskIndex, int parallelism) {
            return new Reader(CommittingSink.store(storeId), FAILED.get(storeId), subtaskIndex);
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
        private final CommittingSink.Store store;
        private final AtomicBoolean failed;
        private final int subtask;
        private long emitted;

        Reader(CommittingSink.Store store, AtomicBoolean failed, int subtask) {
            this.store = store;
            this.failed = failed;
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
            if (store.endOfInputs(0) > 0 && failed.compareAndSet(false, true)) {
                throw new IllegalStateException("Injected failure of source subtask 1 after sink subtask 0 ended");
            }
            if (emitted == SLOW_RECORDS) {
                if (failed.get()) {
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
}
