package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;

/** The job failed, and every task has ended: FAILED, with the last failure as the result's cause. */
final class Failed extends Ended {
    Failed(Context context) {
        super(context);
    }

    @Override
    public JobStatus status() {
        return JobStatus.FAILED;
    }
}
