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
 * This job manager leads the job and its job master runs (session {@code jobMaster.session()}).
 * The job master speaks for the job: its status changes are the job's, cancel goes to it, and
 * status calls show the details it publishes ({@link StatusView.OfJobMaster}), without a hop to its
 * thread or the runner's.
 */
final class Leading implements RunnerState {
    private static final Logger LOG = LoggerFactory.getLogger(Leading.class);

    /** The moves out of {@link Leading}. */
    interface Context {
        void goToSuspending(Leading from, RunningJobMaster jobMaster);

        void goToRecovering(Leading from, UUID session);

        void goToNotLeading(Leading from);

        void goToEnding(Leading from, JobResult result, UUID session, JobDetails lastDetails);

        boolean isCurrent(RunnerState state);

        /** Starts the job master on its thread (meters, health, then {@code start()}). */
        void startJobMaster(RunningJobMaster jobMaster);
    }

    private final Context context;
    private final RunnerSupport support;
    private final RunningJobMaster jobMaster;

    Leading(Context context, RunnerSupport support, RunningJobMaster jobMaster) {
        this.context = context;
        this.support = support;
        this.jobMaster = jobMaster;
    }

    RunningJobMaster jobMaster() {
        return jobMaster;
    }

    @Override
    public void onEnter() {
        support.history.set(JobStatus.CREATED);
        context.startJobMaster(jobMaster);
    }

    /** A status change reported by {@code from}; only the current job master speaks for the job. */
    void jobMasterStatus(RunningJobMaster from, JobStatus status) {
        if (from == jobMaster && status != JobStatus.SUSPENDED) {
            support.history.set(status);
        }
    }

    @Override
    public CompletableFuture<Void> grant(UUID s) {
        if (!s.equals(jobMaster.session())) {
            LOG.warn("{}: grant of session {} while leading under {}; ignored (the chain revokes first)",
                    support.description(), s, jobMaster.session());
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> revoke() {
        LOG.info("{} lost leadership (session {}); suspending its job master", support.description(),
                jobMaster.session());
        support.metrics.recoveryAbandoned();
        jobMaster.suspend("leadership was revoked");
        context.goToSuspending(this, jobMaster);
        return jobMaster.ended();
    }

    @Override
    public CompletableFuture<Acknowledge> cancel() {
        return jobMaster.jobMaster().cancel();
    }

    @Override
    public CompletableFuture<io.sluice.checkpoint.Savepoint> triggerSavepoint(String targetDirectory, boolean stop) {
        return jobMaster.jobMaster().triggerSavepoint(targetDirectory, stop);
    }

    @Override
    public StatusView view() {
        return support.jobMasterView(jobMaster);
    }

    @Override
    public JobHealth health() {
        return jobMaster.jobMaster().health();
    }

    @Override
    public void jobMasterEnded(RunningJobMaster jm, JobResult result) {
        if (jm != jobMaster) {
            LOG.warn("{}: an earlier job master ended while another leads; ignored", support.description());
            return;
        }
        if (result.status() != JobStatus.SUSPENDED) {
            JobDetails last = jm.jobMaster().finalDetails();
            context.goToEnding(this, result, jm.session(), last == null ? null : support.fromJobMaster(last,
                    jm.recovery()));
            return;
        }
        // It suspended itself (its writes were refused): recover again if this session still leads.
        if (jm.session().equals(support.latestGrant())) {
            context.goToRecovering(this, jm.session());
        } else {
            context.goToNotLeading(this);
        }
    }

    @Override
    public void close() {
        jobMaster.suspend("the job manager is shutting down");
    }
}
