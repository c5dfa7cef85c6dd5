package io.sluice.jobmaster.runner;

import io.sluice.checkpoint.CheckpointStats;
import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.JobMaster;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobHealth;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.protocol.RecoveryStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What a job's runner shows of the job at one moment: built by the runner's current {@link
 * RunnerState} ({@link RunnerState#view()}) and published by the runner after every change (every
 * command on its main thread, every transition), then read by status calls from any thread, so a
 * status call never queues behind this job's work nor another's.
 *
 * <p>Immutable: one object per publish, never half-updated. A view holds final values, plus, for
 * what moves while nothing else changes, objects that are safe to read from any thread: a {@link
 * RecoveryProgress} (its own lock; the time spent and "queued for recovery: N jobs ahead" are read
 * live) and the job master's published snapshot ({@link JobMaster#publishedDetails()}).
 *
 * <p>Threading: made on the runner's main thread; {@link #details()} from any thread, and it never
 * submits anything to the runner's or a job master's thread.
 */
sealed interface StatusView {

    /** The job's details as this view shows them; completed at once, except for the task counters of a running job (asked from its task executors). */
    CompletableFuture<JobDetails> details();

    /** No job master speaks for the job: its status, transitions, and (while INITIALIZING) recovery progress. */
    record Initializing(JobId jobId, String name, JobStatus status, List<JobStatusTransition> transitions,
                        String failureMessage, RecoveryProgress progress, JobHealth health) implements StatusView {
        public Initializing {
            transitions = List.copyOf(transitions);
        }

        @Override
        public CompletableFuture<JobDetails> details() {
            return CompletableFuture.completedFuture(now());
        }

        JobDetails now() {
            boolean initializing = status == JobStatus.INITIALIZING;
            RecoveryStatus recovery = initializing && progress != null ? progress.snapshot() : null;
            return new JobDetails(jobId, name, status, transitions, List.of(), CheckpointStats.NONE, 0, failureMessage,
                    recovery).withHealth(initializing ? health : JobHealth.NONE);
        }
    }

    /**
     * A job master speaks for the job: its published details, with the runner's first transition
     * before its own and {@code recovery} unless it reports a recovery phase itself (waiting for slots).
     */
    record OfJobMaster(JobMaster jobMaster, JobStatusTransition first, RecoveryStatus recovery) implements StatusView {
        @Override
        public CompletableFuture<JobDetails> details() {
            return jobMaster.publishedDetails().thenApply(d -> fromJobMaster(first, d, recovery));
        }

        static JobDetails fromJobMaster(JobStatusTransition first, JobDetails d, RecoveryStatus recovery) {
            List<JobStatusTransition> all = new ArrayList<>(d.transitions().size() + 1);
            all.add(first);
            all.addAll(d.transitions());
            return new JobDetails(d.jobId(), d.name(), d.status(), all, d.vertices(), d.checkpoints(), d.restarts(),
                    d.failureMessage(), d.recovery() != null ? d.recovery() : recovery, d.restartHistory(),
                    d.recentFailures(), d.health());
        }
    }

    /** The job's end is decided: its last details, with the recording of its result while {@code progress} is set. */
    record Fixed(JobDetails last, RecoveryProgress progress) implements StatusView {
        @Override
        public CompletableFuture<JobDetails> details() {
            return CompletableFuture.completedFuture(progress == null ? last
                    : RunnerSupport.withRecovery(last, progress.snapshot()));
        }
    }
}
