package io.sluice.dispatcher;

import io.sluice.config.CheckpointingOptions;
import io.sluice.config.Configuration;
import io.sluice.config.JobManagerOptions;
import io.sluice.job.JobResult;
import java.time.Duration;

/**
 * What the leading Dispatcher keeps of ended jobs, and for how long: their retained checkpoints
 * ({@code checkpoints.ended-job-retention}), and the jobs themselves, the record in memory and the result in
 * the HA services ({@code jobmanager.ended-jobs.retention}, at most {@code jobmanager.ended-jobs.max-count}
 * of them); and how often it looks for expired ones. Immutable.
 *
 * @param checkpointRetention time after a job's end when its retained checkpoints expire; zero: never
 * @param jobRetention        time after a job's end when it is forgotten, once nothing of it is left in storage
 * @param maxEndedJobs        at most this many ended jobs are remembered; beyond, those that ended first are
 *                            forgotten (once nothing of them is left in storage)
 */
public record EndedJobRetention(Duration checkpointRetention, Duration jobRetention, int maxEndedJobs) {
    /** The longest time between two sweeps: an expired checkpoint or job is deleted at most this late. */
    static final Duration MAX_SWEEP_INTERVAL = Duration.ofMinutes(10);
    /** The shortest, so that a tiny retention (tests) does not keep the main thread busy. */
    static final Duration MIN_SWEEP_INTERVAL = Duration.ofMillis(100);

    public EndedJobRetention {
        if (checkpointRetention.isNegative()) {
            throw new IllegalArgumentException("checkpoints.ended-job-retention must be zero or positive, not "
                    + checkpointRetention);
        }
        if (jobRetention.isNegative() || jobRetention.isZero()) {
            throw new IllegalArgumentException("jobmanager.ended-jobs.retention must be positive, not " + jobRetention);
        }
        if (maxEndedJobs < 1) {
            throw new IllegalArgumentException("jobmanager.ended-jobs.max-count must be at least 1, not " + maxEndedJobs);
        }
    }

    /** {@code checkpointRetention}, with the defaults for the jobs themselves. */
    public EndedJobRetention(Duration checkpointRetention) {
        this(checkpointRetention, JobManagerOptions.DEFAULT_ENDED_JOBS_RETENTION,
                JobManagerOptions.ENDED_JOBS_MAX_COUNT.defaultValue());
    }

    /** The defaults: {@link CheckpointingOptions#DEFAULT_ENDED_JOB_RETENTION} and the job manager's. */
    public static EndedJobRetention defaults() {
        return new EndedJobRetention(CheckpointingOptions.DEFAULT_ENDED_JOB_RETENTION);
    }

    /** From a job manager's configuration. */
    public static EndedJobRetention from(Configuration configuration) {
        return new EndedJobRetention(configuration.get(CheckpointingOptions.ENDED_JOB_RETENTION),
                configuration.get(JobManagerOptions.ENDED_JOBS_RETENTION),
                configuration.get(JobManagerOptions.ENDED_JOBS_MAX_COUNT));
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

    /** Whether the job that ended with {@code result} is to be forgotten at {@code nowMillis} for its age. */
    boolean jobExpired(JobResult result, long nowMillis) {
        return nowMillis - result.endTimestampMillis() >= jobRetention.toMillis();
    }

    /**
     * Half the shorter retention (an expired checkpoint or job is handled at most half its retention late),
     * within the bounds.
     */
    Duration sweepInterval() {
        Duration shorter = expires() && checkpointRetention.compareTo(jobRetention) < 0 ? checkpointRetention
                : jobRetention;
        Duration half = shorter.dividedBy(2);
        if (half.compareTo(MIN_SWEEP_INTERVAL) < 0) {
            return MIN_SWEEP_INTERVAL;
        }
        return half.compareTo(MAX_SWEEP_INTERVAL) > 0 ? MAX_SWEEP_INTERVAL : half;
    }
}
