package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;

/** Every task finished: checkpointing stops and the job is FINISHED. */
final class Finished extends Ended {
    Finished(Context context) {
        super(context);
    }

    @Override
    public JobStatus status() {
        return JobStatus.FINISHED;
    }

    @Override
    public void onEnter() {
        context.stopCheckpointing("the job finished");
        super.onEnter();
    }
}
