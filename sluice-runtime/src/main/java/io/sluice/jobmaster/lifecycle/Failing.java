package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;

/** The job fails: checkpointing stops, every task is cancelled, and once all have ended the job is FAILED. */
final class Failing implements JobState {
    /** What {@link Failing} may do. */
    interface Context {
        void stopCheckpointing(String reason);

        void cancelAllTasks();

        boolean allTasksEnded();

        void goToFailed();

        void goToCancelling();

        void goToSuspended(String reason);
    }

    private final Context context;

    Failing(Context context) {
        this.context = context;
    }

    @Override
    public JobStatus status() {
        return JobStatus.FAILING;
    }

    @Override
    public void onEnter() {
        context.stopCheckpointing("the job is failing");
        context.cancelAllTasks();
        onTaskEnded();
    }

    @Override
    public void onTaskEnded() {
        if (context.allTasksEnded()) {
            context.goToFailed();
        }
    }

    @Override
    public void cancel() {
        context.goToCancelling();
    }

    @Override
    public void suspend(String reason) {
        context.goToSuspended(reason);
    }
}
