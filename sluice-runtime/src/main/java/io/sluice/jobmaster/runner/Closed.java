package io.sluice.jobmaster.runner;

import io.sluice.job.JobResult;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobHealth;
import io.sluice.rpc.Acknowledge;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The runner was closed (job manager shutdown or loss of the dispatcher leadership): nothing starts
 * any more, grants and revokes are ignored, and once the job master (if one ran) has stopped its
 * tasks the runner leaves the job's election, so another job manager may run the job. A result
 * clean-up already started goes on in the background. Status shows the last known details.
 */
final class Closed implements RunnerState {
    private final RunnerSupport support;
    private final JobDetails lastDetails;
    private final boolean jobEnded;

    /**
     * @param lastDetails the final details if the job ended here, else null (status shows INITIALIZING)
     * @param jobEnded    whether the job's result was already decided here (cancel is then acknowledged)
     */
    Closed(RunnerSupport support, JobDetails lastDetails, boolean jobEnded) {
        this.support = support;
        this.lastDetails = lastDetails;
        this.jobEnded = jobEnded;
    }

    @Override
    public CompletableFuture<Void> grant(UUID s) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> revoke() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Acknowledge> cancel() {
        if (jobEnded) {
            return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
        }
        return CompletableFuture.failedFuture(new IllegalStateException("Job " + support.jobGraph.jobId()
                + " is no longer run by this job manager (" + support.services.contenderId() + ", shutting down or"
                + " no longer the dispatcher leader); cancel it on the dispatcher leader"));
    }

    @Override
    public StatusView view() {
        return lastDetails != null ? new StatusView.Fixed(lastDetails, null)
                : support.initializingView(support.history.status(), null, null);
    }

    @Override
    public JobHealth health() {
        return JobHealth.NONE;
    }

    @Override
    public void jobMasterEnded(RunningJobMaster jm, JobResult result) {
    }
}
