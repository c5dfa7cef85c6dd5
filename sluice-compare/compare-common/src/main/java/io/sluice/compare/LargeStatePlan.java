package io.sluice.compare;

import java.time.Duration;
import java.util.Locale;

/**
 * The parameters of {@link Scenario#LARGE_STATE}, identical for every system: a keyed job whose
 * {@code keys} keys each hold a value of {@code valueBytes} bytes in RocksDB ({@link LargeStateWorkload}),
 * so that the logical state is about {@code stateGb} GB. A load phase writes every key once as fast as
 * the job goes; then a steady phase changes {@code changePerSecond} of the keys per second (a paced
 * source). Checkpoints go to local disk every {@code checkpointInterval}.
 *
 * @param mode               "full" or "smoke" (the harness's {@code --mode})
 * @param stateGb            logical state size in GB (10^9 bytes): {@code keys × valueBytes}
 * @param valueBytes         bytes of each key's value
 * @param keys               distinct keys
 * @param changePerSecond    fraction of the keys changed per second in the steady phase (0.01: 1 %)
 * @param checkpointInterval checkpoint interval
 * @param steadyWarmup       checkpoints completed after the load before the steady window starts (the
 *                           flushes and compactions of the load settle)
 * @param steadyWindow       measured steady window
 * @param failovers          injected task failures measured (median reported)
 * @param parallelism        parallelism of the source and, before the rescale, of the keyed operator
 * @param rescaleTo          the keyed operator's parallelism after the rescale (the source stays at {@code parallelism})
 * @param maxParallelism     key groups (both systems)
 * @param memoryPerSlotBytes RocksDB memory per slot (block cache and write buffers), both systems
 */
public record LargeStatePlan(String mode, double stateGb, int valueBytes, long keys, double changePerSecond,
                             Duration checkpointInterval, int steadyWarmup, Duration steadyWindow, int failovers,
                             int parallelism, int rescaleTo, int maxParallelism, long memoryPerSlotBytes) {

    /** Value size of every key: 130 bytes, within the 100-200. */
    public static final int VALUE_BYTES = 130;
    /** The full run's default state size (the issue asks for at least 4 GB). */
    public static final double FULL_GB = 4.0;
    /** The share of the keys the steady phase changes per second unless {@code --steady-rate} says otherwise. */
    public static final double DEFAULT_CHANGE_PER_SECOND = 0.01;
    /** The smoke run's default state size: 5 MB, about 38,000 keys. */
    public static final double SMOKE_GB = 0.005;

    public LargeStatePlan {
        if (keys < 1000) {
            throw new IllegalArgumentException("The large-state scenario needs at least 1,000 keys, not " + keys
                    + "; pass a larger --state-gb");
        }
    }

    public static LargeStatePlan of(String mode) {
        return of(mode, mode.equals("smoke") ? SMOKE_GB : FULL_GB);
    }

    /** The plan of {@code mode} with {@code stateGb} GB of logical state. */
    public static LargeStatePlan of(String mode, double stateGb) {
        long keys = Math.round(stateGb * 1e9 / VALUE_BYTES);
        long memory = 256L << 20;
        if (mode.equals("smoke")) {
            return new LargeStatePlan(mode, stateGb, VALUE_BYTES, keys, DEFAULT_CHANGE_PER_SECOND, Duration.ofMillis(500), 1,
                    Duration.ofSeconds(2), 1, 2, 4, 128, memory);
        }
        // Two failovers per run up to 1 GB; above, one (each restores the whole state: minutes on 2 cores).
        // A steady window of 2 minutes (30 s until 2026-12-05): what a checkpoint uploads comes in cycles of
        // compactions, each level-0 compaction of an instance every dozen checkpoints or more, so a shorter window
        // measured where in one cycle it fell (at 1 GB, 30 s could hold no compaction at all).
        return new LargeStatePlan(mode, stateGb, VALUE_BYTES, keys, DEFAULT_CHANGE_PER_SECOND, Duration.ofSeconds(3), 3,
                Duration.ofMinutes(2), stateGb > 1.5 ? 1 : 2, 2, 4, 128, memory);
    }

    /** {@code --state-gb}'s value: a positive number of GB. */
    public static double parseGb(String value) {
        double gb;
        try {
            gb = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--state-gb takes a number of GB (e.g. 4 or 0.005), not '" + value + "'");
        }
        if (!(gb > 0) || gb > 1000) {
            throw new IllegalArgumentException("--state-gb must be above 0 and at most 1000, not " + value);
        }
        return gb;
    }

    /** Records/s of the steady phase over all subtasks: {@code changePerSecond × keys}. */
    public double steadyRate() {
        return changePerSecond * keys;
    }

    /**
     * This plan with a steady phase of {@code recordsPerSecond} over all subtasks ({@code --steady-rate}) instead of
     * {@code changePerSecond × keys}: on a machine where no system reaches 1 % of the keys per second, a rate every
     * system sustains compares what each uploads and how long its checkpoints take for the same change.
     */
    public LargeStatePlan withSteadyRate(double recordsPerSecond) {
        return new LargeStatePlan(mode, stateGb, valueBytes, keys, recordsPerSecond / keys, checkpointInterval,
                steadyWarmup, steadyWindow, failovers, parallelism, rescaleTo, maxParallelism, memoryPerSlotBytes);
    }

    /**
     * This plan with {@code n} task failovers ({@code --task-failovers}) instead of its own (one above 1.5 GB): each
     * figure of the task failover is then the median over {@code n}, which fall at different points of the
     * checkpoints' cycle.
     */
    public LargeStatePlan withFailovers(int n) {
        return new LargeStatePlan(mode, stateGb, valueBytes, keys, changePerSecond, checkpointInterval, steadyWarmup,
                steadyWindow, n, parallelism, rescaleTo, maxParallelism, memoryPerSlotBytes);
    }

    /** {@code --task-failovers}' value: a whole number from 1 to 20. */
    public static int parseFailovers(String value) {
        int n;
        try {
            n = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--task-failovers takes a whole number of failovers (e.g. 5), not '"
                    + value + "'");
        }
        if (n < 1 || n > 20) {
            throw new IllegalArgumentException("--task-failovers must be from 1 to 20, not " + value);
        }
        return n;
    }

    /** {@code --steady-rate}'s value: a positive number of records per second. */
    public static double parseSteadyRate(String value) {
        double rate;
        try {
            rate = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--steady-rate takes a number of records per second over all subtasks"
                    + " (e.g. 20000), not '" + value + "'");
        }
        if (!(rate >= 1) || Double.isInfinite(rate)) {
            throw new IllegalArgumentException("--steady-rate must be at least 1 record per second, not " + value);
        }
        return rate;
    }

    /** The variant label of the result rows. */
    public String variant() {
        // The plan's 1 % by name; any other rate (--steady-rate, above or below) by its records/s, so that runs at
        // different rates never share a label.
        String change = changePerSecond == DEFAULT_CHANGE_PER_SECOND
                ? String.format(Locale.ROOT, "%.0f %% of keys/s", changePerSecond * 100)
                : String.format(Locale.ROOT, "%,.0f changes/s (%.3f %% of keys/s)", steadyRate(), changePerSecond * 100);
        return String.format(Locale.ROOT, "%s GB: %,d keys x %d B, %s, checkpoints every %d ms",
                gbLabel(), keys, valueBytes, change, checkpointInterval.toMillis());
    }

    private String gbLabel() {
        return stateGb >= 0.1 ? String.format(Locale.ROOT, "%.1f", stateGb) : String.format(Locale.ROOT, "%.3f", stateGb);
    }

    /** One line for the result file's header. */
    public String describe() {
        return String.format(Locale.ROOT, "mode=%s stateGb=%s keys=%d valueBytes=%d changePerSecond=%.4f"
                        + " steadyRate=%.0f/s checkpointInterval=%dms steadyWarmup=%d checkpoints steadyWindow=%dms"
                        + " failovers=%d parallelism=%d rescaleTo=%d maxParallelism=%d memoryPerSlot=%d MiB",
                mode, gbLabel(), keys, valueBytes, changePerSecond, steadyRate(), checkpointInterval.toMillis(),
                steadyWarmup, steadyWindow.toMillis(), failovers, parallelism, rescaleTo, maxParallelism,
                memoryPerSlotBytes >> 20);
    }
}
