package io.sluice.jobmaster;

import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Drives a {@link JobMaster} on a manually triggered main thread from a test: task state reports
 * as the task executors would send them, and its status and details read on its main thread, each
 * call running the main thread until its queue is empty. Test thread only.
 */
final class JobMasterDriver {
    private final JobMaster jobMaster;
    private final ManuallyTriggeredMainThreadExecutor mainThread;

    JobMasterDriver(JobMaster jobMaster, ManuallyTriggeredMainThreadExecutor mainThread) {
        this.jobMaster = jobMaster;
        this.mainThread = mainThread;
    }

    /** A task's report of {@code state} (with {@code failure}, or null), handled at once. */
    void report(ExecutionAttemptId id, ExecutionState state, Throwable failure) {
        jobMaster.updateTaskExecutionState(new TaskExecutionState(id, state, failure));
        mainThread.triggerAll();
    }

    JobStatus status() {
        return onMain(jobMaster::status);
    }

    JobDetails details() {
        return onMain(jobMaster::currentDetails);
    }

    private <T> T onMain(Supplier<T> fn) {
        AtomicReference<T> result = new AtomicReference<>();
        mainThread.execute(() -> result.set(fn.get()));
        mainThread.triggerAll();
        return result.get();
    }
}
