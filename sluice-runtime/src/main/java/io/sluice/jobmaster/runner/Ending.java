package io.sluice.jobmaster.runner;

import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.job.JobResult;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobHealth;
import io.sluice.rpc.Acknowledge;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The job has ended here (finished, failed, or cancelled) and its result is being made durable
 * ({@link ResultRecorder}). The end wins: from now on no recovery attempt, retry or job master
 * starts, whatever was queued before. Grants and revokes only tell the recorder which session may
 * write. Status shows the job's final status with the recording's progress.
 */
final class Ending implements RunnerState {

    /** The moves out of {@link Ending}. */
    interface Context {
        /** The result is durable and the checkpoints are cleaned up as the retention rule says. */
        void goToEnded(Ending from, JobResult result, JobDetails finalDetails);

        boolean isCurrent(RunnerState state);
    }

    private final Context context;
    private final RunnerSupport support;
    private final JobResult result;
    private final String failureMessage;
    private final ResultRecorder recorder;
    /** Set on entry when not given: built once the final status is recorded, so it shows that transition. */
    private JobDetails lastDetails;

    /**
     * @param result      the job's result, naming where its checkpoints are and whether they go
     * @param store       the job's checkpoint store to shut down once the result is durable, or null
     * @param session     the session that may write the result now, or null
     * @param lastDetails the job master's last details to show from now on, or null (the runner's own)
     * @param failureMessage shown in the runner's own details, or null
     */
    Ending(Context context, RunnerSupport support, JobResult result, CompletedCheckpointStore store, UUID session,
           JobDetails lastDetails, String failureMessage) {
        this.context = context;
        this.support = support;
        this.result = result;
        this.lastDetails = lastDetails;
        this.failureMessage = failureMessage;
        this.recorder = new ResultRecorder(support, result, store, session, this::durable);
    }

    @Override
    public void onEnter() {
        support.history.set(result.status());
        if (lastDetails == null) {
            lastDetails = support.initializingDetails(result.status(), failureMessage, null);
        }
        recorder.recordSoon(Duration.ZERO);
    }

    @Override
    public void onLeave() {
        recorder.stop();
    }

    private void durable(JobResult recorded) {
        if (context.isCurrent(this)) {
            context.goToEnded(this, recorded, lastDetails);
        }
    }

    /** The details shown once the job ended here (the job master's last ones, or the runner's). */
    JobDetails lastDetails() {
        return lastDetails;
    }

    @Override
    public CompletableFuture<Void> grant(UUID s) {
        recorder.leadership(s);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> revoke() {
        recorder.leadership(null);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Acknowledge> cancel() {
        return CompletableFuture.completedFuture(Acknowledge.INSTANCE);
    }

    @Override
    public StatusView view() {
        return new StatusView.Fixed(lastDetails, recorder.progress());
    }

    @Override
    public JobHealth health() {
        return JobHealth.NONE;
    }

    @Override
    public void jobMasterEnded(RunningJobMaster jm, JobResult jobMasterResult) {
        // A job master of an earlier session that was still suspending: the job's end is already decided.
    }
}
