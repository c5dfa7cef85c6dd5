package io.sluice.dispatcher;

import io.sluice.config.CheckpointingOptions;
import io.sluice.config.Configuration;
import io.sluice.job.JobResult;
import java.time.Duration;

/**
 * How long the retained checkpoints of ended jobs are kept ({@code checkpoints.ended-job-retention}),
 * and how often the leading Dispatcher looks for expired ones. Immutable.
 *
 * @param checkpointRetention time after a job's end when its retained checkpoints expire; zero: never
 */
public record EndedJobRetention(Duration checkpointRetention) {
    /** The longest time between two sweeps: an expired checkpoint is deleted at most this late. */
    static final Duration MAX_SWEEP_INTERVAL = Duration.ofMinutes(10);
    /** The shortest, so that a tiny retention (tests) does not keep the main thread busy. */
    static final Duration MIN_SWEEP_INTERVAL = Duration.ofMillis(100);

    public EndedJobRetention {
        if (checkpointRetention.isNegative()) {
            throw new IllegalArgumentException("checkpoints.ended-job-retention must be zero or positive, not "
                    + checkpointRetention);
        }
    }

    /** The default: {@link CheckpointingOptions#DEFAULT_ENDED_JOB_RETENTION}. */
    public static EndedJobRetention defaults() {
        return new EndedJobRetention(CheckpointingOptions.DEFAULT_ENDED_JOB_RETENTION);
    }

    /** From a job manager's configuration. */
    public static EndedJobRetention from(Configuration configuration) {
        return new EndedJobRetention(configuration.get(CheckpointingOptions.ENDED_JOB_RETENTION));
    }

    /** Whether checkpoints ever expire. */
    boolean expires() {
        return !checkpointRetention.isZero();
    }

    /** Whether the retained checkpoints of the job that ended with {@code result} have expired at {@code nowMillis}. */
    boolean expired(JobResult result, long nowMillis) {
        return expires() && result.mayHaveCheckpoints()
                && nowMillis - result.endTimestampMillis() >= checkpointRetention.toMillis();
    }

    /** Half the retention (an expired checkpoint is deleted at most half its retention late), within the bounds. */
    Duration sweepInterval() {
        Duration half = checkpointRetention.dividedBy(2);
        if (half.compareTo(MIN_SWEEP_INTERVAL) < 0) {
            return MIN_SWEEP_INTERVAL;
        }
        return half.compareTo(MAX_SWEEP_INTERVAL) > 0 ? MAX_SWEEP_INTERVAL : half;
    }
}
