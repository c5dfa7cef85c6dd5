package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;

/**
 * The job is cancelled: checkpointing stops, every task is cancelled, and once all have ended the
 * job is CANCELED. A task failing meanwhile does not restart anything.
 */
final class Cancelling implements JobState {
    /** What {@link Cancelling} may do. */
    interface Context {
        void stopCheckpointing(String reason);

        void cancelAllTasks();

        boolean allTasksEnded();

        void goToCanceled();

        void goToSuspended(String reason);
    }

    private final Context context;

    Cancelling(Context context) {
        this.context = context;
    }

    @Override
    public JobStatus status() {
        return JobStatus.CANCELLING;
    }

    @Override
    public void onEnter() {
        context.stopCheckpointing("the job is cancelled");
        context.cancelAllTasks();
        onTaskEnded();
    }

    @Override
    public void onTaskEnded() {
        if (context.allTasksEnded()) {
            context.goToCanceled();
        }
    }

    @Override
    public void cancel() {
        // already being cancelled
    }

    @Override
    public void suspend(String reason) {
        context.goToSuspended(reason);
    }
}
