package io.sluice.jobmaster.runner;

import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobHealth;
import io.sluice.rpc.Acknowledge;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This job manager does not lead the job and no job master of it runs here: the job is
 * INITIALIZING, "waiting for leadership". The first state, and the one after a revoke once the
 * job master (if any) has stopped its tasks.
 */
final class NotLeading implements RunnerState {
    private static final Logger LOG = LoggerFactory.getLogger(NotLeading.class);

    /** The moves out of {@link NotLeading}. */
    interface Context {
        void goToRecovering(NotLeading from, UUID session);
    }

    private final Context context;
    private final RunnerSupport support;
    private final RecoveryProgress progress;

    NotLeading(Context context, RunnerSupport support) {
        this.context = context;
        this.support = support;
        this.progress = support.newProgress();
    }

    @Override
    public void onEnter() {
        support.history.set(JobStatus.INITIALIZING);
    }

    @Override
    public CompletableFuture<Void> grant(UUID s) {
        context.goToRecovering(this, s);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> revoke() {
        LOG.debug("{}: revoked while not leading; nothing to do", support.description());
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Acknowledge> cancel() {
        return CompletableFuture.failedFuture(new IllegalStateException("Job " + support.jobGraph.jobId()
                + " is not led by this job manager (" + support.services.contenderId() + ") right now; cancel it on"
                + " its leader"));
    }

    @Override
    public CompletableFuture<JobDetails> details() {
        return CompletableFuture.completedFuture(support.initializingDetails(support.history.status(), null,
                progress.snapshot()));
    }

    @Override
    public JobHealth health() {
        return support.recoveryHealth();
    }

    @Override
    public void jobMasterEnded(RunningJobMaster jm, JobResult result) {
        LOG.warn("{}: a job master ended ({}) while none ran here; ignored", support.description(), result.status());
    }
}
