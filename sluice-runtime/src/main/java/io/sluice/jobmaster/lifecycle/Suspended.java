package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This job manager lost the job's leadership: the status is SUSPENDED at once (no checkpoint is
 * started or completed any more, the tasks are cancelled), but the job master's result completes
 * only once every task has ended, so that a job manager that shuts down leaves the election only
 * when no task of its own still runs. Not the end of the job: another job manager resumes it.
 */
final class Suspended implements JobState {
    private static final Logger LOG = LoggerFactory.getLogger(Suspended.class);

    /** What {@link Suspended} may do: no transition, it is final for this job master. */
    interface Context {
        String jobLabel();

        void stopCheckpointing(String reason);

        void cancelAllTasks();

        boolean allTasksEnded();

        void releaseDeployment();

        void finish(JobStatus terminal);
    }

    private final Context context;
    private final String reason;
    private boolean finished;

    Suspended(Context context, String reason) {
        this.context = context;
        this.reason = reason;
    }

    @Override
    public JobStatus status() {
        return JobStatus.SUSPENDED;
    }

    @Override
    public void onEnter() {
        LOG.info("Suspending {}: {}", context.jobLabel(), reason);
        context.stopCheckpointing("the job is suspended");
        context.cancelAllTasks();
        onTaskEnded();
    }

    @Override
    public void onTaskEnded() {
        if (!finished && context.allTasksEnded()) {
            finished = true;
            context.releaseDeployment();
            context.finish(JobStatus.SUSPENDED);
        }
    }

    @Override
    public void cancel() {
        // not this job master's job any more
    }

    @Override
    public void suspend(String reason) {
        // already suspended
    }
}
