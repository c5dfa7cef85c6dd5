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
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The Dispatcher's answers about jobs: the list and one job's details, both read from published
 * snapshots: where each job stands ({@link JobTable#published}, set on the Dispatcher's main thread)
 * and what its runner shows ({@link JobManagerRunner#requestJobDetails()}, the view the runner
 * publishes on its own thread after every change, with the job master's published details). No
 * answer submits anything to the Dispatcher's thread or any job's thread, so neither waits behind
 * another job's start, restore, deployment or end, nor behind the Dispatcher taking the lead. A
 * job being recovered or not known yet is reported INITIALIZING with what is happening rather than
 * unknown.
 *
 * <p>Threading: any thread (it only reads published values; the caller's thread builds the answer).
 */
final class JobQueries {
    private final DispatcherCore core;

    JobQueries(DispatcherCore core) {
        this.core = core;
    }

    List<JobSummary> list() {
        List<JobSummary> out = new ArrayList<>();
        for (JobTable.Published p : core.jobs.publishedInStage(JobExecution.Running.class)) {
            out.add(((JobExecution.Running) p.execution()).runner().summary());
        }
        for (JobTable.Published p : core.jobs.publishedInStage(JobExecution.ReadingGraph.class)) {
            out.add(new JobSummary(p.id(), null, JobStatus.INITIALIZING, core.startMillis, core.startMillis));
        }
        for (JobTable.Published p : core.jobs.publishedInStage(JobExecution.Ended.class)) {
            out.add(endedSummary((JobExecution.Ended) p.execution()));
        }
        return out;
    }

    private static JobSummary endedSummary(JobExecution.Ended ended) {
        JobResult r = ended.result();
        JobDetails d = ended.details();
        long start = d != null && !d.transitions().isEmpty() ? d.transitions().get(0).timestampMillis() : -1;
        return new JobSummary(r.jobId(), r.jobName(), r.status(), start, r.endTimestampMillis());
    }

    /**
     * One job's details. The Dispatcher's flags are read before the job's published stage, in the
     * reverse of the order the main thread writes them (the listing flag is set before the leader
     * session, and cleared only after every listed job is published), so a job is never reported
     * unknown while the leader is still listing it.
     */
    CompletableFuture<JobDetails> details(JobId jobId) {
        UUID session = core.leaderSession;
        boolean listing = core.listingJobs;
        boolean closed = core.closed;
        JobTable.Published published = core.jobs.published(jobId);
        JobExecution execution = published == null ? null : published.execution();
        if (execution instanceof JobExecution.Running running) {
            return running.runner().requestJobDetails();
        }
        if (execution instanceof JobExecution.Ended ended) {
            return CompletableFuture.completedFuture(ended.details());
        }
        if (execution instanceof JobExecution.ReadingGraph reading) {
            return CompletableFuture.completedFuture(readingDetails(jobId, reading));
        }
        if (listing) {
            return CompletableFuture.completedFuture(placeholder(jobId,
                    "the job manager is recovering its list of jobs; this job may or may not be among them"));
        }
        if (session == null) {
            Optional<String> leader = core.leaderRetrieval.currentLeader();
            if (!closed && (leader.isEmpty() || leader.get().equals(core.id()))) {
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
