package io.sluice.metrics.job;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.sluice.checkpoint.CheckpointMetricsListener;
import io.sluice.checkpoint.CompletedCheckpointStats;
import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import io.sluice.metrics.MeterGroup;
import io.sluice.metrics.MetricNames;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import io.sluice.protocol.JobHealth;
import io.sluice.restart.CrashLoop;

/**
 * The meters of one job on one job manager: checkpoints (completed, failed, duration, size,
 * failing since when),
 * restarts, time in each status, recovery attempts and recovery duration. Tags {@code job} and
 * {@code job_name}. Created by the job's runner; {@link #close()} removes every meter, which the
 * runner does when the job ends or the runner is closed.
 *
 * <p>Threading: every method is thread-safe. The runner calls the status and recovery methods on its
 * main thread, the checkpoint coordinator calls the checkpoint methods on the job master's.
 */
public final class JobMetrics implements CheckpointMetricsListener, AutoCloseable {
    private final MeterGroup group;
    private final Clock clock;
    private final JobStatusTimes statusTimes;
    private final Set<JobStatus> statusesRegistered = EnumSet.noneOf(JobStatus.class);
    private final Counter checkpointsCompleted;
    private final Counter checkpointsFailed;
    private final Timer checkpointDuration;
    private final DistributionSummary checkpointSize;
    private final Counter restarts;
    private final Counter recoveryAttempts;
    private final Timer recoveryDuration;
    /** Start of the recovery in progress (clock nanos), or -1 when none. Guarded by this. */
    private long recoveryStartNanos = -1;
    /**
     * Wall-clock millis of the first checkpoint failure since the last completion, -1 while they
     * succeed: written by the job master's main thread, read by the scrape thread.
     */
    private volatile long checkpointsFailingSinceMillis = -1;
    /** The current job master's health and checkpoint age (any thread), or none between job masters. */
    private volatile Supplier<JobHealth> health = () -> JobHealth.NONE;
    private volatile LongSupplier checkpointAgeMillis = () -> 0L;

    public JobMetrics(MeterRegistry registry, JobId jobId, String jobName, JobStatus initial, Clock clock) {
        this.group = new MeterGroup(registry, Tags.of(MetricNames.TAG_JOB, jobId.value(),
                MetricNames.TAG_JOB_NAME, jobName == null ? "" : jobName));
        this.clock = clock;
        this.statusTimes = new JobStatusTimes(initial, clock::nanoTime);
        Tags tags = group.tags();
        checkpointsCompleted = group.add(r -> Counter.builder(MetricNames.JOB_CHECKPOINTS_COMPLETED)
                .description("Checkpoints completed (metadata and pointer written)").tags(tags).register(r));
        checkpointsFailed = group.add(r -> Counter.builder(MetricNames.JOB_CHECKPOINTS_FAILED)
                .description("Checkpoints that failed (declined, timed out, or could not be written)").tags(tags).register(r));
        checkpointDuration = group.add(r -> Timer.builder(MetricNames.JOB_CHECKPOINT_DURATION)
                .description("Trigger to completion of each completed checkpoint").tags(tags)
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(10)).register(r));
        checkpointSize = group.add(r -> DistributionSummary.builder(MetricNames.JOB_CHECKPOINT_SIZE)
                .description("State size of each completed checkpoint (bytes of its state files and inline state)")
                .baseUnit("bytes").tags(tags).register(r));
        restarts = group.add(r -> Counter.builder(MetricNames.JOB_RESTARTS)
                .description("Restarts after task failures (transitions to RESTARTING)").tags(tags).register(r));
        recoveryAttempts = group.add(r -> Counter.builder(MetricNames.JOB_RECOVERY_ATTEMPTS)
                .description("Recovery attempts after gaining leadership (the first try and each retry)").tags(tags)
                .register(r));
        recoveryDuration = group.add(r -> Timer.builder(MetricNames.JOB_RECOVERY_DURATION)
                .description("Leadership grant to job master start, for each completed recovery").tags(tags).register(r));
        group.add(r -> Gauge.builder(MetricNames.JOB_RECOVERY_ELAPSED, this, JobMetrics::recoveryElapsedSeconds)
                .description("Time spent so far in the recovery in progress (0 when none)").baseUnit("seconds")
                .tags(tags).register(r));
        group.add(r -> Gauge.builder(MetricNames.JOB_CHECKPOINTS_FAILING, this,
                        m -> m.checkpointsFailingSinceMillis >= 0 ? 1.0 : 0.0)
                .description("1 while checkpoints fail (since the first failure after the last completed"
                        + " checkpoint), 0 while they succeed").tags(tags).register(r));
        group.add(r -> Gauge.builder(MetricNames.JOB_CHECKPOINTS_FAILING_SINCE, this,
                        m -> m.checkpointsFailingSinceMillis >= 0 ? m.checkpointsFailingSinceMillis / 1000.0 : 0.0)
                .description("Since when checkpoints fail: Unix time of the first failure after the last completed"
                        + " checkpoint; 0 while they succeed").baseUnit("seconds").tags(tags).register(r));
        group.add(r -> Gauge.builder(MetricNames.JOB_CRASH_LOOP, this, m -> m.crashLoop() == null ? 0 : m.crashLoop().count())
                .description("While the job is in a crash loop (the same error on consecutive attempts, at least 3 times):"
                        + " how many times in a row; 0 otherwise").tags(tags).register(r));
        group.add(r -> Gauge.builder(MetricNames.JOB_CRASH_LOOP_SINCE, this,
                        m -> m.crashLoop() == null ? 0 : m.crashLoop().sinceMillis() / 1000.0)
                .description("Unix time of the first failure of the current crash loop; 0 when none").baseUnit("seconds")
                .tags(tags).register(r));
        group.add(r -> Gauge.builder(MetricNames.JOB_CRASH_LOOP_RESTORE_NEVER_SUCCEEDS, this,
                        m -> m.crashLoop() != null && m.crashLoop().restoreNeverSucceeds() ? 1.0 : 0.0)
                .description("1 while the crash loop is a restore that can never succeed (retried only slowly; the"
                        + " operator must act), else 0").tags(tags).register(r));
        group.add(r -> Gauge.builder(MetricNames.JOB_CHECKPOINTS_STALE, this,
                        m -> m.health.get().checkpointsStale() ? 1.0 : 0.0)
                .description("1 while the latest completed checkpoint is older than checkpoints.stale-after, else 0")
                .tags(tags).register(r));
        group.add(r -> Gauge.builder(MetricNames.JOB_CHECKPOINT_AGE, this, m -> m.checkpointAgeMillis.getAsLong() / 1000.0)
                .description("Time since the latest completed checkpoint (before the first: since the job master"
                        + " started); 0 while the job does not checkpoint").baseUnit("seconds").tags(tags).register(r));
        registerStatus(initial);
    }

    /**
     * Where the crash-loop and checkpoint-age gauges read from: the current job master's
     * {@code health} and {@code checkpointAgeMillis}, both callable from any thread; {@code null}
     * between job masters (the gauges read 0). Any thread.
     */
    public void healthFrom(Supplier<JobHealth> health, LongSupplier checkpointAgeMillis) {
        this.health = health == null ? () -> JobHealth.NONE : health;
        this.checkpointAgeMillis = checkpointAgeMillis == null ? () -> 0L : checkpointAgeMillis;
    }

    private CrashLoop crashLoop() {
        return health.get().crashLoop();
    }

    /** Records a status change (the runner's view of the job). A change into RESTARTING counts a restart. */
    public void statusChanged(JobStatus next) {
        if (statusTimes.enter(next)) {
            registerStatus(next);
            if (next == JobStatus.RESTARTING) {
                restarts.increment();
            }
        }
    }

    /** A recovery (after a leadership grant) begins. */
    public synchronized void recoveryStarted() {
        recoveryStartNanos = clock.nanoTime();
    }

    /** One recovery attempt begins (the first or a retry). */
    public void recoveryAttempt() {
        recoveryAttempts.increment();
    }

    /** The recovery in progress succeeded: the job master starts. */
    public synchronized void recoveryFinished() {
        if (recoveryStartNanos >= 0) {
            recoveryDuration.record(clock.nanoTime() - recoveryStartNanos, TimeUnit.NANOSECONDS);
            recoveryStartNanos = -1;
        }
    }

    /** The recovery in progress was abandoned (leadership lost, cancelled, failed permanently). */
    public synchronized void recoveryAbandoned() {
        recoveryStartNanos = -1;
    }

    @Override
    public void checkpointCompleted(CompletedCheckpointStats stats) {
        checkpointsCompleted.increment();
        checkpointDuration.record(stats.durationNanos(), TimeUnit.NANOSECONDS);
        checkpointSize.record(stats.stateBytes());
    }

    @Override
    public void checkpointFailed() {
        checkpointsFailed.increment();
    }

    /** Any thread (the coordinator calls it on the job master's main thread). */
    @Override
    public void failingSinceChanged(long sinceMillis) {
        checkpointsFailingSinceMillis = sinceMillis;
    }

    /** Removes every meter of this job. Idempotent. */
    @Override
    public void close() {
        group.close();
    }

    private synchronized double recoveryElapsedSeconds() {
        return recoveryStartNanos < 0 ? 0.0 : (clock.nanoTime() - recoveryStartNanos) / 1e9;
    }

    private void registerStatus(JobStatus status) {
        synchronized (statusesRegistered) {
            if (!statusesRegistered.add(status)) {
                return;
            }
        }
        group.add(r -> FunctionCounter.builder(MetricNames.JOB_STATUS_TIME, statusTimes, t -> t.seconds(status))
                .description("Time the job spent in each status on this job manager").baseUnit("seconds")
                .tags(group.tags()).tag(MetricNames.TAG_STATUS, status.name()).register(r));
    }
}
