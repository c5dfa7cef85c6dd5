package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;

/**
 * The job is over for good ({@link JobStatus#isGloballyTerminal()}): its last round's channels are
 * released and the job master's result completes. Nothing changes it any more.
 */
abstract sealed class Ended implements JobState permits Finished, Failed, Canceled {
    /** What an ended state may do: no transition. */
    interface Context {
        void stopCheckpointing(String reason);

        void releaseDeployment();

        void finish(JobStatus terminal);
    }

    final Context context;

    Ended(Context context) {
        this.context = context;
    }

    @Override
    public void onEnter() {
        context.releaseDeployment();
        context.finish(status());
    }

    @Override
    public final void cancel() {
        // over
    }

    @Override
    public final void suspend(String reason) {
        // over
    }
}
