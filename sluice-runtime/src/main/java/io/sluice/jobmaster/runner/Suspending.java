package io.sluice.jobmaster.runner;

import io.sluice.checkpoint.CompletedCheckpointStore;
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
 * Leadership was revoked and the job master of that session is stopping its tasks. The revoke's
 * operation on the leadership chain completes only when it has ended, so a new grant waits here
 * (shown as INITIALIZING, "waiting for the job master of the previous leadership to stop its
 * tasks"): never two task sets of one job. A cancel while a new grant waits ends the job under
 * that new session without starting another job master.
 */
final class Suspending implements RunnerState {
    private static final Logger LOG = LoggerFactory.getLogger(Suspending.class);

    /** The moves out of {@link Suspending}. */
    interface Context {
        void goToNotLeading(Suspending from);

        void goToEnding(Suspending from, JobResult result, UUID session, CompletedCheckpointStore store,
                        JobDetails lastDetails);
    }

    private final Context context;
    private final RunnerSupport support;
    private final RunningJobMaster jobMaster;
    private RecoveryProgress waiting;

    Suspending(Context context, RunnerSupport support, RunningJobMaster jobMaster) {
        this.context = context;
        this.support = support;
        this.jobMaster = jobMaster;
    }

    @Override
    public void grantWaiting(UUID s) {
        LOG.info("{}: granted session {}; waiting for the previous job master to stop its tasks before recovering",
                support.description(), s);
        waiting = support.newProgress();
        waiting.phase("waiting for the job master of the previous leadership to stop its tasks");
        support.history.set(JobStatus.INITIALIZING);
    }

    @Override
    public CompletableFuture<Void> grant(UUID s) {
        // Cannot happen: the chain runs a grant only after this state's revoke completed, which leaves it.
        throw new IllegalStateException(support.description() + ": grant of session " + s
                + " ran while the previous job master still stops its tasks");
    }

    @Override
    public CompletableFuture<Void> revoke() {
        waiting = null;
        return jobMaster.ended();
    }

    @Override
    public CompletableFuture<Acknowledge> cancel() {
        UUID next = support.latestGrant();
        if (next == null) {
            // Cancelling the suspending job master would not stop the job: the next leader runs it.
            return CompletableFuture.failedFuture(new IllegalStateException("Job " + support.jobGraph.jobId()
                    + " is not led by this job manager (" + support.services.contenderId() + ") right now; cancel"
                    + " it on its leader"));
        }
        LOG.info("{}: cancelled while the previous job master stops its tasks", support.description());
        JobResult result = JobResult.of(support.jobGraph.jobId(), support.jobGraph.name(), JobStatus.CANCELED,
                support.services.clock().currentTimeMillis(), null);
        context.goToEnding(this, result, next, null, null);
        return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
    }

    @Override
    public StatusView view() {
        if (waiting != null) {
            return support.initializingView(JobStatus.INITIALIZING, null, waiting);
        }
        return support.jobMasterView(jobMaster);
    }

    @Override
    public JobHealth health() {
        return JobHealth.NONE;
    }

    @Override
    public void jobMasterEnded(RunningJobMaster jm, JobResult result) {
        if (result.status() == JobStatus.SUSPENDED) {
            context.goToNotLeading(this); // nothing to clean: the next leader recovers from the same pointers
            return;
        }
        // The job ended before the suspension reached it: its result is recorded once leadership is back.
        JobDetails last = jm.jobMaster().finalDetails();
        context.goToEnding(this, result, null, jm.recovered().store(), last == null ? null : support.fromJobMaster(last, jm.recovery()));
    }
}
