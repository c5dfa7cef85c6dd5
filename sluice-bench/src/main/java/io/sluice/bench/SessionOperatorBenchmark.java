package io.sluice.bench;

import io.sluice.api.functions.AggregateFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.windowing.WindowAssigner;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.operators.OperatorContext;
import io.sluice.operators.Output;
import io.sluice.operators.RecordTimestamp;
import io.sluice.operators.windowing.WindowContents;
import io.sluice.operators.windowing.WindowOperator;
import io.sluice.state.HeapKeyedStateBackend;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.KeyedStateSnapshot;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Locale;

/**
 * The session scenario of {@link EventTimeBenchmark} without the cluster: one {@link WindowOperator}
 * (event-time sessions, 5 s gap, counting) over a {@link HeapKeyedStateBackend} with all key groups,
 * driven on this thread with the same records (key {@code (v / 4) % 100,000}, time {@code v / 40}
 * ms), a watermark every 200 ms of event time and a checkpoint every {@code --checkpoint-every}
 * records (default 1,000,000: about one a second at the job's rate): the synchronous
 * {@code snapshot()} and then {@code writeTo}, both on this thread, timed apart.
 *
 * <p>It measures the thread's CPU time ({@link ThreadMXBean#getCurrentThreadCpuTime}), so other load
 * on the machine changes the figures much less than the wall-time rates of the cluster benchmark.
 *
 * <pre>
 * java -Xmx2g -cp ... io.sluice.bench.SessionOperatorBenchmark [--records N] [--warmup-records N] [--runs N]
 *      [--checkpoint-every N]
 * </pre>
 */
public final class SessionOperatorBenchmark {
    private static final long KEYS = 100_000;

    private SessionOperatorBenchmark() {}

    static final class Count implements AggregateFunction<Long, Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Long value, Long acc) {
            return acc + 1;
        }

        @Override
        public Long getResult(Long acc) {
            return acc;
        }

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }
    }

    /** CPU nanoseconds of one measured stretch, split by what they were spent on. */
    record Figures(long records, long operatorNanos, long snapshotNanos, long writeNanos, long checkpoints,
                   long bytes, long results) {
        double recordsPerCpuSecond() {
            return records * 1e9 / (operatorNanos + snapshotNanos);
        }

        double recordsPerCpuSecondWithWrite() {
            return records * 1e9 / (operatorNanos + snapshotNanos + writeNanos);
        }
    }

    public static void main(String[] args) throws Exception {
        long records = 20_000_000;
        long warmup = 10_000_000;
        int runs = 3;
        long checkpointEvery = 1_000_000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--records" -> records = Long.parseLong(args[++i]);
                case "--warmup-records" -> warmup = Long.parseLong(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--checkpoint-every" -> checkpointEvery = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("Unknown option " + args[i] + "; options: --records N"
                        + " --warmup-records N --runs N --checkpoint-every N");
            }
        }
        System.out.printf(Locale.ROOT, "Session window operator alone: %,d keys, 5 s gap, a checkpoint every %,d records;"
                + " warm-up %,d records, then %d run(s) of %,d (each a fresh operator and backend)%n",
                KEYS, checkpointEvery, warmup, runs, records);
        print("warm-up", run(warmup, checkpointEvery));
        for (int r = 1; r <= runs; r++) {
            print("run " + r, run(records, checkpointEvery));
        }
    }

    private static void print(String what, Figures f) {
        System.out.printf(Locale.ROOT, "   %-8s %,12.0f records per CPU-second (operator + synchronous snapshot), %,12.0f with the"
                        + " snapshot write; per checkpoint: synchronous %.2f ms, write %.2f ms, %,d bytes; %,d results%n",
                what, f.recordsPerCpuSecond(), f.recordsPerCpuSecondWithWrite(),
                f.snapshotNanos() / 1e6 / Math.max(1, f.checkpoints()), f.writeNanos() / 1e6 / Math.max(1, f.checkpoints()),
                f.bytes() / Math.max(1, f.checkpoints()), f.results());
    }

    static Figures run(long records, long checkpointEvery) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, 127), 128);
        RecordTimestamp timestamp = new RecordTimestamp();
        long[] results = new long[1];
        Output<Object> output = new Output<>() {
            @Override
            public void collect(Object record) {
                results[0]++;
            }
        };
        WindowOperator<Long, Long, Long, Long> op = new WindowOperator<>(
                WindowAssigner.sessionEventTime(Duration.ofSeconds(5)), 0, null,
                WindowContents.aggregating(new Count()), "sessions");
        op.open(new OperatorContext() {
            @Override
            public RuntimeContext runtimeContext() {
                return null;
            }

            @Override
            @SuppressWarnings("unchecked")
            public <T> Output<T> output() {
                return (Output<T>) output;
            }

            @Override
            public KeyedStateBackend keyedStateBackend() {
                return backend;
            }

            @Override
            public RecordTimestamp recordTimestamp() {
                return timestamp;
            }
        });
        DataOutputBuffer out = new DataOutputBuffer(1 << 20);
        long snapshotNanos = 0;
        long writeNanos = 0;
        long bytes = 0;
        long checkpoints = 0;
        Long value = 1L;
        long start = threads.getCurrentThreadCpuTime();
        for (long v = 0; v < records; v++) {
            long time = v / 40;
            backend.setCurrentKey(Long.valueOf((v / 4) % KEYS)); // a fresh key object per record, as deserialized
            timestamp.set(time);
            op.processElement(value);
            if (v % 8_000 == 7_999) {
                op.processWatermark(time - 1); // monotonous timestamps: every 200 ms of event time
            }
            if (v % checkpointEvery == checkpointEvery - 1) {
                long t0 = threads.getCurrentThreadCpuTime();
                KeyedStateSnapshot snapshot = backend.snapshot();
                long t1 = threads.getCurrentThreadCpuTime();
                out.clear();
                snapshot.writeTo(out);
                long t2 = threads.getCurrentThreadCpuTime();
                snapshotNanos += t1 - t0;
                writeNanos += t2 - t1;
                bytes += out.position();
                checkpoints++;
            }
        }
        long total = threads.getCurrentThreadCpuTime() - start;
        return new Figures(records, total - snapshotNanos - writeNanos, snapshotNanos, writeNanos, checkpoints, bytes,
                results[0]);
    }
}
