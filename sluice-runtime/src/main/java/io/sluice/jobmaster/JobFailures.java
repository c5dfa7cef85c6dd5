package io.sluice.jobmaster;

import io.sluice.job.JobResult;
import io.sluice.protocol.FailureEvent;
import io.sluice.protocol.JobDetails;
import io.sluice.restart.RestartHistory;
import io.sluice.restart.RestartTracker;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.util.Clock;
import java.util.ArrayDeque;
import java.util.List;

/**
 * What went wrong with a job under its job master, for its details and its result: the latest
 * failure (the result's cause if the job fails), the latest failure events with whether each
 * restarted the job (at most {@link JobDetails#RECENT_FAILURES_LIMIT}), the number of restarts (the
 * attempt number of the next deployment's tasks) and the restart history of the last minutes.
 *
 * <p>Threading: the job master's main thread only; every method checks it.
 */
final class JobFailures {
    private final MainThreadExecutor mainThread;
    private final Clock clock;
    private final RestartTracker restartTracker;
    /** The latest task failures, oldest first, at most {@link JobDetails#RECENT_FAILURES_LIMIT}. */
    private final ArrayDeque<FailureEvent> recent = new ArrayDeque<>();
    private Throwable lastFailure;
    private int restarts;

    JobFailures(MainThreadExecutor mainThread, Clock clock) {
        this.mainThread = mainThread;
        this.clock = clock;
        this.restartTracker = new RestartTracker(clock);
    }

    /** The job's latest failure: reported in its details, and its result's cause if it fails. */
    void setLastFailure(Throwable cause) {
        mainThread.assertRunningInMainThread();
        lastFailure = cause;
    }

    /** The latest failure, or {@code null}. */
    Throwable lastFailure() {
        mainThread.assertRunningInMainThread();
        return lastFailure;
    }

    /** A failure the restart strategy was asked about; {@code restarted}: whether it restarts the job. */
    void recordEvent(Throwable cause, boolean restarted) {
        mainThread.assertRunningInMainThread();
        recent.addLast(new FailureEvent(clock.currentTimeMillis(), JobResult.describe(cause), restarted));
        if (recent.size() > JobDetails.RECENT_FAILURES_LIMIT) {
            recent.removeFirst();
        }
    }

    /** The job restarts after {@code cause}: counted, and in the restart history. */
    void restarting(Throwable cause) {
        mainThread.assertRunningInMainThread();
        restarts++;
        restartTracker.record(JobResult.describe(cause));
    }

    /** The job restarts from an older checkpoint: counted, but not a failure the restart history shows. */
    void fallingBack() {
        mainThread.assertRunningInMainThread();
        restarts++;
    }

    int restarts() {
        mainThread.assertRunningInMainThread();
        return restarts;
    }

    List<FailureEvent> recentEvents() {
        mainThread.assertRunningInMainThread();
        return List.copyOf(recent);
    }

    RestartHistory restartHistory() {
        mainThread.assertRunningInMainThread();
        return restartTracker.history();
    }
}
