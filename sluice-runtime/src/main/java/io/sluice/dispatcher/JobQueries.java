package io.sluice.dispatcher;

import io.sluice.checkpoint.CheckpointStats;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.runner.JobManagerRunner;
import io.sluice.jobmaster.runner.RecoveryProgress;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.protocol.JobSummary;
import io.sluice.protocol.RecoveryStatus;
import io.sluice.protocol.UnknownJobException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The Dispatcher's answers about jobs: the list, built from memory (each runner publishes its
 * status, times and health, so the list never waits for any job's work), and one job's details
 * (a running job's come from its runner, on the runner's thread, so a status call waits at most
 * behind that job's own work; a job being recovered or not known yet is reported INITIALIZING
 * with what is happening rather than unknown).
 *
 * <p>Threading: the Dispatcher's main thread.
 */
final class JobQueries {
    private final DispatcherCore core;

    JobQueries(DispatcherCore core) {
        this.core = core;
    }

    List<JobSummary> list() {
        core.assertMainThread();
        List<JobSummary> out = new ArrayList<>();
        for (JobManagerRunner r : core.jobs.runners()) {
            out.add(new JobSummary(r.jobId(), r.jobGraph().name(), r.status(), r.startTimeMillis(),
                    r.lastTransitionMillis(), r.health()));
        }
        for (JobRecord r : core.jobs.inStage(JobExecution.ReadingGraph.class)) {
            out.add(new JobSummary(r.id(), null, JobStatus.INITIALIZING, core.startMillis, core.startMillis));
        }
        for (JobRecord r : core.jobs.inStage(JobExecution.Ended.class)) {
            out.add(endedSummary((JobExecution.Ended) r.execution()));
        }
        return out;
    }

    private static JobSummary endedSummary(JobExecution.Ended ended) {
        JobResult r = ended.result();
        JobDetails d = ended.details();
        long start = d != null && !d.transitions().isEmpty() ? d.transitions().get(0).timestampMillis() : -1;
        return new JobSummary(r.jobId(), r.jobName(), r.status(), start, r.endTimestampMillis());
    }

    CompletableFuture<JobDetails> details(JobId jobId) {
        core.assertMainThread();
        JobExecution execution = core.jobs.execution(jobId).orElse(null);
        if (execution instanceof JobExecution.Running running) {
            return running.runner().requestJobDetails();
        }
        if (execution instanceof JobExecution.Ended ended) {
            return CompletableFuture.completedFuture(ended.details());
        }
        if (execution instanceof JobExecution.ReadingGraph reading) {
            return CompletableFuture.completedFuture(readingDetails(jobId, reading));
        }
        if (core.listingJobs) {
            return CompletableFuture.completedFuture(placeholder(jobId,
                    "the job manager is recovering its list of jobs; this job may or may not be among them"));
        }
        if (core.leaderSession == null) {
            Optional<String> leader = core.leaderRetrieval.currentLeader();
            if (!core.closed && (leader.isEmpty() || leader.get().equals(core.id()))) {
                // No other leader: this job manager is about to lead and recover the stored jobs, so
                // an id it does not know yet may well be one of them.
                return CompletableFuture.completedFuture(placeholder(jobId,
                        "the job manager is waiting for dispatcher leadership before recovering its jobs;"
                                + " this job may or may not be among them"));
            }
            return CompletableFuture.failedFuture(new UnknownJobException(jobId, core.standbyMessage("ask")));
        }
        return CompletableFuture.failedFuture(new UnknownJobException(jobId));
    }

    private JobDetails readingDetails(JobId jobId, JobExecution.ReadingGraph reading) {
        JobExecution.GraphReadFailure failure = reading.failure();
        if (failure != null) {
            long now = core.services.clock().currentTimeMillis();
            return placeholder(jobId, "reading the job graph (attempt " + failure.attempt() + " failed: "
                    + failure.error() + "; retrying; cancel the job to stop, its checkpoints are kept)",
                    failure.attempt(), failure.error(), Math.max(0, failure.nextRetryAtMillis() - now));
        }
        int ahead = reading.read() == null ? -1 : reading.read().ahead();
        return placeholder(jobId, ahead >= 0 ? RecoveryProgress.queuedText(ahead) : "reading the job graph");
    }

    private JobDetails placeholder(JobId jobId, String phase) {
        return placeholder(jobId, phase, 0, null, 0);
    }

    private JobDetails placeholder(JobId jobId, String phase, int attempt, String lastError, long nextRetryMillis) {
        long now = core.services.clock().currentTimeMillis();
        return new JobDetails(jobId, null, JobStatus.INITIALIZING,
                List.of(new JobStatusTransition(JobStatus.INITIALIZING, core.startMillis)), List.of(),
                CheckpointStats.NONE, 0, null,
                new RecoveryStatus(phase, attempt, -1, 0, now - core.startMillis, lastError, nextRetryMillis, List.of()));
    }
}
