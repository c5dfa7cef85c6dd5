package io.sluice.config;

import java.time.Duration;

/**
 * Options choosing and tuning how a failed job is restarted. Constants only; thread-safe.
 *
 * <p>The default is what a production job wants: exponential delay with jitter and no attempt
 * limit, starting again from the initial wait after a stable period. A job whose tasks fail for
 * a reason that goes away (a lost machine, a dependency that is down for a while) comes back by
 * itself; a crash loop costs at most one restart per {@code max} and shows in the job's status
 * (restarts in the last 10 minutes and their causes) instead of ending the job. Errors no restart
 * can fix (see {@code io.sluice.api.errors.UnrecoverableJobException}) fail the job at once instead.
 */
public final class RestartOptions {
    private RestartOptions() {}

    public static final ConfigOption<RestartStrategyType> STRATEGY = ConfigOptions.key("restart-strategy")
            .enumType(RestartStrategyType.class)
            .defaultValue(RestartStrategyType.EXPONENTIAL_DELAY)
            .withDescription("How a failed job is restarted; each strategy reads the options under its own prefix."
                    + " The default, exponential-delay, restarts without limit with a growing, jittered wait;"
                    + " fixed-delay and failure-rate give up after a number of failures, none never restarts.");

    public static final ConfigOption<Integer> FIXED_DELAY_ATTEMPTS = ConfigOptions.key("restart-strategy.fixed-delay.attempts")
            .intType()
            .defaultValue(10)
            .withConstraint(n -> n >= 0, "zero or positive")
            .withDescription("Restarts attempted before the job is failed for good.");

    public static final ConfigOption<Duration> FIXED_DELAY_DELAY = ConfigOptions.key("restart-strategy.fixed-delay.delay")
            .durationType()
            .defaultValue(Duration.ofSeconds(1))
            .withConstraint(d -> !d.isNegative(), "zero or positive")
            .withDescription("Wait before each restart.");

    public static final ConfigOption<Duration> EXPONENTIAL_DELAY_INITIAL = ConfigOptions.key("restart-strategy.exponential-delay.initial")
            .durationType()
            .defaultValue(Duration.ofSeconds(1))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "positive")
            .withDescription("Wait before the first restart, and again after a quiet period.");

    public static final ConfigOption<Duration> EXPONENTIAL_DELAY_MAX = ConfigOptions.key("restart-strategy.exponential-delay.max")
            .durationType()
            .defaultValue(Duration.ofMinutes(1))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "positive")
            .withDescription("Upper bound of the wait; must not be smaller than the initial wait. One minute: a job"
                    + " is back at most about a minute after the cause of its failures went away, while a crash"
                    + " loop restarts (and re-reads its restore state) at most about once a minute.");

    public static final ConfigOption<Double> EXPONENTIAL_DELAY_MULTIPLIER = ConfigOptions.key("restart-strategy.exponential-delay.multiplier")
            .doubleType()
            .defaultValue(2.0)
            .withConstraint(m -> m >= 1.0, "at least 1.0")
            .withDescription("Factor by which the wait grows with each failure.");

    public static final ConfigOption<Duration> EXPONENTIAL_DELAY_RESET_AFTER = ConfigOptions.key("restart-strategy.exponential-delay.reset-after")
            .durationType()
            .defaultValue(Duration.ofMinutes(10))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "positive")
            .withDescription("After running this long without a failure, the wait starts again from the initial wait.");

    public static final ConfigOption<Double> EXPONENTIAL_DELAY_JITTER = ConfigOptions.key("restart-strategy.exponential-delay.jitter")
            .doubleType()
            .defaultValue(0.1)
            .withConstraint(j -> j >= 0.0 && j <= 1.0, "between 0.0 and 1.0")
            .withDescription("Random fraction by which each wait is lengthened or shortened, so that many jobs do not restart in step.");

    public static final ConfigOption<Integer> FAILURE_RATE_MAX_FAILURES = ConfigOptions.key("restart-strategy.failure-rate.max-failures")
            .intType()
            .defaultValue(3)
            .withConstraint(n -> n >= 0, "zero or positive")
            .withDescription("Failures tolerated within the interval; one more fails the job for good.");

    public static final ConfigOption<Duration> FAILURE_RATE_INTERVAL = ConfigOptions.key("restart-strategy.failure-rate.interval")
            .durationType()
            .defaultValue(Duration.ofMinutes(1))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "positive")
            .withDescription("Length of the sliding window in which failures are counted.");

    public static final ConfigOption<Duration> FAILURE_RATE_DELAY = ConfigOptions.key("restart-strategy.failure-rate.delay")
            .durationType()
            .defaultValue(Duration.ofSeconds(1))
            .withConstraint(d -> !d.isNegative(), "zero or positive")
            .withDescription("Wait before each restart.");
}
