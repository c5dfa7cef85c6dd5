package io.sluice.compare;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The event streams of the two window scenarios, defined once for every system: record {@code v} of
 * the global sequence 0, 1, 2, ... becomes an event with key {@link #key(long)} and event time
 * {@link #eventTime(long)} (ms). These are the formulas of {@code io.sluice.bench.EventTimeBenchmark}
 * in sluice-bench, so the comparison measures the workloads measured there.
 *
 * <ul>
 *   <li>{@link #TUMBLING}: key {@code v % 1024}, time {@code v / 1000} ms; a 1 s tumbling window sums the
 *       event times per key (1,000,000 records per window second, about 977 per key and window).</li>
 *   <li>{@link #SESSION}: key {@code (v / 4) % 100,000}, time {@code v / 40} ms: each key gets four records
 *       in a row (0.1 ms of event time), then nothing for 400,000 records, which is 10 s of event time, so
 *       the 5 s gap closes every session and each key has a burst of activity every 10 s (a key does
 *       <em>not</em> recur every few ms, which would make one endless session per key). About 50,000
 *       sessions are open at any time; each fires with a count of 4.</li>
 * </ul>
 *
 * <p>Both systems' sources must hand every subtask an interleaved share of the sequence (subtask
 * {@code i} of {@code p}: {@code i, i + p, i + 2p, ...}), so that the subtasks' event times advance
 * together and the watermark (the minimum over the source subtasks) keeps up with all of them.
 * Sluice's {@code SequenceSource} does that; Flink's {@code fromSequence} gives each subtask a
 * contiguous range instead, which {@link #interleaved} maps back.
 *
 * <p>Thread rules: immutable; any thread.
 */
public enum WindowWorkload {
    TUMBLING(Scenario.WINDOW_TUMBLING, 1024, 1, 1000, 1000),
    SESSION(Scenario.WINDOW_SESSION, 100_000, 4, 40, 5000);

    private final Scenario scenario;
    private final long keys;
    private final long run;
    private final long perMilli;
    private final long windowMillis;

    WindowWorkload(Scenario scenario, long keys, long run, long perMilli, long windowMillis) {
        this.scenario = scenario;
        this.keys = keys;
        this.run = run;
        this.perMilli = perMilli;
        this.windowMillis = windowMillis;
    }

    public Scenario scenario() {
        return scenario;
    }

    /** Distinct keys. */
    public long keys() {
        return keys;
    }

    /** The tumbling window's size, or the session gap, in ms. */
    public long windowMillis() {
        return windowMillis;
    }

    public long key(long v) {
        return (v / run) % keys;
    }

    /** Event time of record {@code v}, ms. */
    public long eventTime(long v) {
        return v / perMilli;
    }

    /**
     * What the window function adds up per record: the event time for {@link #TUMBLING} (a sum), 1 for
     * {@link #SESSION} (a count).
     */
    public long value(long v) {
        return this == TUMBLING ? eventTime(v) : 1;
    }

    /**
     * The global sequence number of the {@code v} that Flink's {@code fromSequence(0, p * perSplit - 1)}
     * emitted: that source splits the range into {@code p} contiguous splits of {@code perSplit} values,
     * and the {@code j}-th value of split {@code k} stands for {@code j * p + k}.
     */
    public static long interleaved(long v, int parallelism, long perSplit) {
        return (v % perSplit) * parallelism + v / perSplit;
    }

    /** What a bounded run over records {@code 0 .. records - 1} must produce once every window fired. */
    public record Expected(long windows, long resultSum) {
    }

    /**
     * Simulates the windows of records {@code 0 .. records - 1} in plain Java: for {@link #TUMBLING}
     * the distinct (key, window) pairs, for {@link #SESSION} the sessions per key (a record starts a new
     * session when it comes at least the gap after that key's previous record), and the sum of every
     * fired window's result (for {@link #SESSION}: {@code records}).
     */
    public Expected expected(long records) {
        long sum = 0;
        long windows = 0;
        if (this == TUMBLING) {
            Set<Long> seen = new HashSet<>();
            for (long v = 0; v < records; v++) {
                long window = eventTime(v) / windowMillis;
                if (seen.add(window * keys + key(v))) {
                    windows++;
                }
                sum += value(v);
            }
        } else {
            Map<Long, Long> last = new HashMap<>();
            for (long v = 0; v < records; v++) {
                long t = eventTime(v);
                Long previous = last.put(key(v), t);
                if (previous == null || t - previous >= windowMillis) {
                    windows++;
                }
                sum += value(v);
            }
        }
        return new Expected(windows, sum);
    }
}
