package io.sluice.jobmaster.runner;

import io.sluice.job.JobStatus;
import io.sluice.metrics.job.JobMetrics;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.util.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The job's status as its runner reports it: every change is appended to the transitions and
 * told to the job's meters.
 *
 * <p>Threading: {@link #set} and {@link #transitions()} on the runner's main thread; {@link
 * #status()}, {@link #startTimeMillis()} and {@link #lastTransitionMillis()} from any thread (they
 * read fields published by {@link #set}), so the job list never waits for the runner.
 */
final class StatusHistory {
    private final Clock clock;
    private final JobMetrics metrics;
    /** Main thread. */
    private final List<JobStatusTransition> transitions = new ArrayList<>();
    private final long startTimeMillis;
    private volatile JobStatus status = JobStatus.INITIALIZING;
    private volatile long lastTransitionMillis;

    StatusHistory(Clock clock, JobMetrics metrics) {
        this.clock = clock;
        this.metrics = metrics;
        this.startTimeMillis = clock.currentTimeMillis();
        this.lastTransitionMillis = startTimeMillis;
        transitions.add(new JobStatusTransition(JobStatus.INITIALIZING, startTimeMillis));
    }

    /** Records {@code next} if it differs from the current status. Main thread. */
    void set(JobStatus next) {
        if (status == next) {
            return;
        }
        long now = clock.currentTimeMillis();
        transitions.add(new JobStatusTransition(next, now));
        lastTransitionMillis = now;
        status = next;
        metrics.statusChanged(next);
    }

    /** Any thread. */
    JobStatus status() {
        return status;
    }

    /** When the runner was created. Any thread. */
    long startTimeMillis() {
        return startTimeMillis;
    }

    /** When the status last changed. Any thread. */
    long lastTransitionMillis() {
        return lastTransitionMillis;
    }

    /** A copy of every transition so far. Main thread. */
    List<JobStatusTransition> transitions() {
        return List.copyOf(transitions);
    }

    /** The first transition (INITIALIZING, when the runner was created). */
    JobStatusTransition first() {
        return new JobStatusTransition(JobStatus.INITIALIZING, startTimeMillis);
    }
}
