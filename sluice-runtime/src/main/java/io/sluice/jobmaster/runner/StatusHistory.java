package io.sluice.jobmaster.runner;

import io.sluice.job.JobStatus;
import io.sluice.metrics.job.JobMetrics;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.util.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The job's status as its runner reports it: every change is appended to the transitions and
 * told to the job's meters.
 *
 * <p>Threading: {@link #set} on the runner's main thread (checked); every change publishes one
 * immutable {@link Snapshot} (status, every transition, time of the latest) in a volatile field, so
 * {@link #snapshot()}, {@link #status()}, {@link #transitions()} and the times are read from any
 * thread, consistently, and neither the job list nor a status call waits for the runner.
 */
final class StatusHistory {
    /** The status and its history at one moment. Immutable. */
    record Snapshot(JobStatus status, List<JobStatusTransition> transitions, long lastTransitionMillis) {
        Snapshot {
            transitions = List.copyOf(transitions);
        }
    }

    private final Clock clock;
    private final JobMetrics metrics;
    private final MainThreadExecutor mainThread;
    private final long startTimeMillis;
    private volatile Snapshot snapshot;

    StatusHistory(Clock clock, JobMetrics metrics, MainThreadExecutor mainThread) {
        this.clock = clock;
        this.metrics = metrics;
        this.mainThread = mainThread;
        this.startTimeMillis = clock.currentTimeMillis();
        this.snapshot = new Snapshot(JobStatus.INITIALIZING,
                List.of(new JobStatusTransition(JobStatus.INITIALIZING, startTimeMillis)), startTimeMillis);
    }

    /** Records {@code next} if it differs from the current status. Main thread. */
    void set(JobStatus next) {
        mainThread.assertRunningInMainThread();
        Snapshot now = snapshot;
        if (now.status() == next) {
            return;
        }
        long at = clock.currentTimeMillis();
        List<JobStatusTransition> all = new ArrayList<>(now.transitions());
        all.add(new JobStatusTransition(next, at));
        snapshot = new Snapshot(next, all, at);
        metrics.statusChanged(next);
    }

    /** The status, its transitions and the latest one's time, as one value. Any thread. */
    Snapshot snapshot() {
        return snapshot;
    }

    /** Any thread. */
    JobStatus status() {
        return snapshot.status();
    }

    /** When the runner was created. Any thread. */
    long startTimeMillis() {
        return startTimeMillis;
    }

    /** When the status last changed. Any thread. */
    long lastTransitionMillis() {
        return snapshot.lastTransitionMillis();
    }

    /** Every transition so far (an immutable list). Any thread. */
    List<JobStatusTransition> transitions() {
        return snapshot.transitions();
    }

    /** The first transition (INITIALIZING, when the runner was created). */
    JobStatusTransition first() {
        return new JobStatusTransition(JobStatus.INITIALIZING, startTimeMillis);
    }
}
