package io.sluice.cluster.membership;

import io.sluice.concurrent.BackoffPolicy;
import io.sluice.config.Configuration;
import io.sluice.config.TaskManagerOptions;
import java.time.Duration;

/**
 * How long a task executor waits between registration attempts: {@code initial}, doubling after
 * every failed attempt, at most {@code max} ({@code taskmanager.registration.initial-backoff} 100 ms,
 * {@code max-backoff} 10 s by default): the settings of a {@link BackoffPolicy} without jitter, read
 * from the task manager's configuration. Immutable.
 */
public record RegistrationBackoff(Duration initial, Duration max) {
    public static final RegistrationBackoff DEFAULT = new RegistrationBackoff(
            TaskManagerOptions.REGISTRATION_INITIAL_BACKOFF.defaultValue(),
            TaskManagerOptions.REGISTRATION_MAX_BACKOFF.defaultValue());

    public RegistrationBackoff {
        if (initial.isNegative() || initial.isZero()) {
            throw new IllegalArgumentException("taskmanager.registration.initial-backoff must be positive, got " + initial);
        }
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("taskmanager.registration.max-backoff (" + max
                    + ") must not be below taskmanager.registration.initial-backoff (" + initial + ")");
        }
    }

    public static RegistrationBackoff from(Configuration configuration) {
        return new RegistrationBackoff(configuration.get(TaskManagerOptions.REGISTRATION_INITIAL_BACKOFF),
                configuration.get(TaskManagerOptions.REGISTRATION_MAX_BACKOFF));
    }

    /** These settings as a policy: doubling from {@code initial} up to {@code max}, no jitter, no limit. */
    public BackoffPolicy policy() {
        return BackoffPolicy.exponential(initial, max);
    }

    /** The wait after failed attempt {@code attempt} (1-based): initial · 2^(attempt-1), at most max. */
    public Duration delayAfter(int attempt) {
        return policy().delayAfter(attempt);
    }
}
