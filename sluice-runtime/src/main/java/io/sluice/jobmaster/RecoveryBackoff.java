package io.sluice.jobmaster;

import io.sluice.concurrent.BackoffPolicy;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Waits between recovery attempts: exponential from {@code initial} up to {@code max}, with
 * +/- {@code jitter} (a fraction) so that many jobs recovering at once do not retry in lockstep.
 * A delay never exceeds {@code max}. The settings of a {@link BackoffPolicy} (which computes the
 * delays), under the name the job manager's services, {@code LocalCluster.Builder} and the tests
 * know them by, with the two presets of recovery.
 */
public record RecoveryBackoff(Duration initial, Duration max, double multiplier, double jitter) {
    /**
     * Storage errors during recovery (and job-result writes): 100 ms doubling to 1 s, +/-20 %. The
     * cap keeps a recovering job manager within about one second of storage coming back, at about
     * one storage request per second and job while storage is down.
     */
    public static final RecoveryBackoff DEFAULT = new RecoveryBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0.2);

    /**
     * When every retained checkpoint is unreadable (corrupt or missing) and starting empty is not
     * allowed: 5 s doubling to 1 min, +/-20 %. Each attempt re-reads the metadata of every retained
     * checkpoint, so it is slow; the job resumes by itself once the files are repaired.
     */
    public static final RecoveryBackoff UNUSABLE_CHECKPOINTS =
            new RecoveryBackoff(Duration.ofSeconds(5), Duration.ofMinutes(1), 2.0, 0.2);

    public RecoveryBackoff {
        if (initial.isNegative() || max.compareTo(initial) < 0 || multiplier < 1.0 || jitter < 0 || jitter >= 1) {
            throw new IllegalArgumentException("Invalid recovery backoff: initial " + initial + ", max " + max
                    + ", multiplier " + multiplier + ", jitter " + jitter);
        }
    }

    /** These settings as the policy every retry loop takes its waits from (no attempt limit, no deadline). */
    public BackoffPolicy policy() {
        return BackoffPolicy.builder().initialDelay(initial).multiplier(multiplier).maxDelay(max).jitter(jitter).build();
    }

    /** The wait after the {@code attempt}-th failed attempt (1-based): {@link BackoffPolicy#delayAfter(int, RandomGenerator)}. */
    public Duration delayAfter(int attempt, RandomGenerator random) {
        return policy().delayAfter(attempt, random);
    }
}
