package io.sluice.config;

/** Options applied to every job unless the job sets its own. Constants only; thread-safe. */
public final class PipelineOptions {
    private PipelineOptions() {}

    /** The upper bound of {@link #MAX_PARALLELISM}, the number of key groups state can be split into. */
    public static final int UPPER_BOUND_MAX_PARALLELISM = 1 << 15;

    public static final ConfigOption<Integer> PARALLELISM = ConfigOptions.key("pipeline.parallelism")
            .intType()
            .defaultValue(2)
            .withConstraint(n -> n >= 1, "at least 1")
            .withDescription("Default number of parallel subtasks per operator; must not exceed pipeline.max-parallelism.");

    public static final ConfigOption<Integer> MAX_PARALLELISM = ConfigOptions.key("pipeline.max-parallelism")
            .intType()
            .defaultValue(128)
            .withConstraint(n -> n >= 1 && n <= UPPER_BOUND_MAX_PARALLELISM, "between 1 and " + UPPER_BOUND_MAX_PARALLELISM)
            .withDescription("Number of key groups keyed state is split into: the highest parallelism a job can be"
                    + " rescaled to. Changing it makes existing checkpoints unusable.");
}
