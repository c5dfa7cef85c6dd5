package io.sluice.bench;

import io.sluice.operators.timers.KeyedTimers;
import io.sluice.state.HeapKeyedStateBackend;
import io.sluice.state.KeyGroupRange;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The heap a pending event-time timer costs: {@code --timers N} (default 1,000,000) timers registered
 * on a {@link KeyedTimers} over a {@link HeapKeyedStateBackend} (what a {@code KeyedProcessFunction}
 * or a window operator uses), measured as the used heap after minus before, each after repeated full
 * GCs ({@link MemoryMXBean#gc()} until the used heap stops falling), divided by N. Two layouts: one
 * timer for each of N keys (the key's state entry is part of the cost, as it is for a window's
 * end-of-window timer per key), and N / 1,000 keys with 1,000 timers each. The keys are {@code Long}s
 * created for the test; their own objects count in the first layout (16 bytes each with compressed
 * oops), as they would for a job whose keys are not otherwise kept.
 *
 * <pre>
 * java -Xmx2g -cp ... io.sluice.bench.TimerMemoryBenchmark [--timers 1000000]
 * </pre>
 */
public final class TimerMemoryBenchmark {
    private static final int MAX_PARALLELISM = 128;

    private TimerMemoryBenchmark() {}

    /** One layout's measurement. */
    public record Result(String layout, long timers, long keys, long bytes) {
        public double bytesPerTimer() {
            return (double) bytes / timers;
        }
    }

    public static void main(String[] args) {
        long timers = 1_000_000;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--timers")) {
                timers = Long.parseLong(args[++i]);
            } else {
                throw new IllegalArgumentException("Unknown option " + args[i] + "; the only option is --timers N");
            }
        }
        run(timers, System.out);
    }

    /** Measures both layouts with {@code timers} timers, printing to {@code out}. */
    public static List<Result> run(long timers, PrintStream out) {
        out.printf(Locale.ROOT, "Sluice pending-timer memory: %,d event-time timers, heap delta after full GCs, JVM %s, max heap %d MiB%n",
                timers, System.getProperty("java.vm.version"), Runtime.getRuntime().maxMemory() >> 20);
        List<Result> results = new ArrayList<>();
        results.add(measure("one timer per key", timers, timers, out));
        long keys = Math.max(1, timers / 1_000);
        results.add(measure("1,000 timers per key", timers, keys, out));
        return results;
    }

    private static Result measure(String layout, long timers, long keys, PrintStream out) {
        long before = usedAfterGc();
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX_PARALLELISM - 1), MAX_PARALLELISM);
        KeyedTimers keyed = new KeyedTimers(backend, "bench");
        long perKey = timers / keys;
        for (long k = 0; k < keys; k++) {
            backend.setCurrentKey(k);
            for (long t = 0; t < perKey; t++) {
                keyed.registerEventTime(1_000_000L + k * 7 + t * 1_000); // distinct, spread times
            }
        }
        long after = usedAfterGc();
        if (keyed.pendingEventTimeTimers() != timers) {
            throw new IllegalStateException("Registered " + keyed.pendingEventTimeTimers() + " timers, not " + timers);
        }
        Result r = new Result(layout, timers, keys, after - before);
        out.printf(Locale.ROOT, "%-22s %,10d keys  %,14d bytes  %8.1f bytes per timer%n", layout, keys, r.bytes(),
                r.bytesPerTimer());
        out.flush();
        java.lang.ref.Reference.reachabilityFence(keyed);
        java.lang.ref.Reference.reachabilityFence(backend);
        return r;
    }

    /** The used heap after full GCs, repeated until it stops falling (at most 10). */
    static long usedAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            memory.gc();
            long now = memory.getHeapMemoryUsage().getUsed();
            if (now >= used) {
                return now;
            }
            used = now;
        }
        return used;
    }
}
