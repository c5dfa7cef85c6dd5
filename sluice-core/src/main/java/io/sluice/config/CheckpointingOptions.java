package io.sluice.config;

import java.time.Duration;

/** Options for periodic checkpoints. Constants only; thread-safe. */
public final class CheckpointingOptions {
    private CheckpointingOptions() {}

    public static final ConfigOption<Duration> INTERVAL = ConfigOptions.key("checkpoints.interval")
            .durationType()
            .defaultValue(Duration.ZERO)
            .withConstraint(d -> !d.isNegative(), "zero or positive")
            .withDescription("Time between the starts of two checkpoints. 0 disables checkpointing,"
                    + " so nothing is checkpointed unless this is set.");

    public static final ConfigOption<String> DIRECTORY = ConfigOptions.key("checkpoints.dir")
            .stringType()
            .defaultValue("./sluice-data/checkpoints")
            .withConstraint(s -> !s.isBlank(), "a non-empty path")
            .withDescription("Directory under which each job's checkpoints are written.");

    public static final ConfigOption<Integer> RETAINED = ConfigOptions.key("checkpoints.retained")
            .intType()
            .defaultValue(3)
            .withConstraint(n -> n >= 1, "at least 1")
            .withDescription("Number of completed checkpoints kept; older ones are deleted.");

    public static final ConfigOption<Duration> TIMEOUT = ConfigOptions.key("checkpoints.timeout")
            .durationType()
            .defaultValue(Duration.ofMinutes(10))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "positive")
            .withDescription("A checkpoint not completed within this time is aborted.");

    public static final ConfigOption<Integer> TOLERABLE_FAILURES = ConfigOptions.key("checkpoints.tolerable-failures")
            .intType()
            .defaultValue(3)
            .withConstraint(n -> n >= 0, "zero or positive")
            .withDescription("Consecutive failed checkpoints tolerated before the job is failed and restarted.");
}
