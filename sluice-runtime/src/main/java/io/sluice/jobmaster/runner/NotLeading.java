package io.sluice.jobmaster.runner;

import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
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
 *
 * <p>A cancel that arrives here is held until the grant and then applied to the state the grant
 * leads to: a job is submitted to (and its runner lives on) the dispatcher's leader, whose grant
 * for the job follows shortly (it is asynchronous, so a cancel sent right after a submission used
 * to be refused). If the runner closes first, the held cancel fails saying why.
 */
final class NotLeading implements RunnerState {
    private static final Logger LOG = LoggerFactory.getLogger(NotLeading.class);

    /** The moves out of {@link NotLeading}. */
    interface Context {
        void goToRecovering(NotLeading from, UUID session);

        /** Cancels in whatever state is current now (after this one was left). */
        CompletableFuture<Acknowledge> cancelInCurrentState();
    }

    private final Context context;
    private final RunnerSupport support;
    private final RecoveryProgress progress;
    private CompletableFuture<Acknowledge> heldCancel;
    private boolean granted;

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
        granted = true;
        context.goToRecovering(this, s);
        if (heldCancel != null) {
            LOG.info("{}: granted; applying the cancel held while waiting for leadership", support.description());
            CompletableFuture<Acknowledge> held = heldCancel;
            context.cancelInCurrentState().whenComplete((ack, e) -> {
                if (e != null) {
                    held.completeExceptionally(e);
                } else {
                    held.complete(ack);
                }
            });
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void onLeave() {
        if (heldCancel != null && !granted) {
            heldCancel.completeExceptionally(new IllegalStateException("Job " + support.jobGraph.jobId()
                    + " was not cancelled: this job manager (" + support.services.contenderId() + ") stopped"
                    + " waiting for its leadership before it was granted; cancel it on the job manager that leads"
                    + " the cluster now"));
        }
    }

    @Override
    public CompletableFuture<Void> revoke() {
        LOG.debug("{}: revoked while not leading; nothing to do", support.description());
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Acknowledge> cancel() {
        if (heldCancel == null) {
            LOG.info("{}: cancel requested while waiting for leadership; held until the grant",
                    support.description());
            heldCancel = new CompletableFuture<>();
        }
        return heldCancel;
    }

    @Override
    public StatusView view() {
        return support.initializingView(support.history.status(), null, progress);
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
