package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;

/**
 * Every subtask is deployed (a new round on entering; its tasks restore from the latest completed
 * checkpoint first) and checkpoints are taken. The job finishes once every task has finished; a
 * failure makes it restart or fail, as the failover policy decides.
 */
final class Running implements JobState {
    /** What {@link Running} may do. */
    interface Context {
        void deployAll();

        void startCheckpointing();

        boolean allTasksFinished();

        /** Records the failure; whether the job restarts or fails. */
        FailoverDecision failover(TaskFailure failure);

        void goToRestarting();

        void goToFailing();

        void goToFinished();

        void goToCancelling();

        void goToSuspended(String reason);
    }

    private final Context context;

    Running(Context context) {
        this.context = context;
    }

    @Override
    public JobStatus status() {
        return JobStatus.RUNNING;
    }

    @Override
    public void onEnter() {
        context.deployAll();
        context.startCheckpointing(); // no-op after a restart: checkpointing kept running
    }

    @Override
    public void onTaskFailed(TaskFailure failure) {
        failOver(failure);
    }

    @Override
    public void onGlobalFailure(Throwable cause) {
        failOver(TaskFailure.global(cause));
    }

    @Override
    public void onTaskFinished() {
        if (context.allTasksFinished()) {
            context.goToFinished();
        }
    }

    private void failOver(TaskFailure failure) {
        if (context.failover(failure) == FailoverDecision.RESTART) {
            context.goToRestarting();
        } else {
            context.goToFailing();
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
