package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;

/** The job was cancelled, and every task has ended: CANCELED. */
final class Canceled extends Ended {
    Canceled(Context context) {
        super(context);
    }

    @Override
    public JobStatus status() {
        return JobStatus.CANCELED;
    }
}
