package io.sluice.dispatcher;

import io.sluice.checkpoint.CheckpointStats;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.jar.ClassLoaderLease;
import io.sluice.job.JobResult;
import io.sluice.jobmaster.runner.JobManagerRunner;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.rpc.MainThreadExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts, ends and closes the Dispatcher's job manager runners, and records ended jobs. A new
 * runner of a job whose earlier runner is still closing (its tasks still run after a lost dispatcher
 * leadership) joins the job's election only once that one has closed. Each runner runs on its own
 * main thread ({@code runnerThreads}); its result comes back to the Dispatcher's.
 *
 * <p>Threading: the Dispatcher's main thread.
 */
final class JobRunners {
    private static final Logger LOG = LoggerFactory.getLogger(JobRunners.class);

    private final DispatcherCore core;
    private final Function<JobId, MainThreadExecutor> runnerThreads;
    /** Told after every job recorded as ended (the janitor bounds how many are remembered). Main thread. */
    private final Runnable jobEnded;

    JobRunners(DispatcherCore core, Function<JobId, MainThreadExecutor> runnerThreads, Runnable jobEnded) {
        this.core = core;
        this.runnerThreads = runnerThreads;
        this.jobEnded = jobEnded;
    }

    /** Starts the runner of {@code graph} (the job's place in the recovery order: {@code ticket}). */
    void start(JobGraph graph, ClassLoaderLease lease, long ticket) {
        core.assertMainThread();
        JobId id = graph.jobId();
        JobManagerRunner runner = new JobManagerRunner(graph, core.services, runnerThreads.apply(id), ticket);
        JobRecord record = core.jobs.getOrCreate(id);
        core.jobs.enter(record, new JobExecution.Running(runner, lease));
        CompletableFuture<Void> previous = record.previousRunnerClosed();
        if (previous == null) {
            runner.start();
        } else {
            LOG.info("Job {}: waiting for the previous runner's tasks to end before joining the job's election", id);
            previous.whenCompleteAsync((ignored, error) -> {
                if (isCurrent(id, runner) && !core.closed) {
                    runner.start();
                }
            }, core.mainThread);
        }
        runner.resultFuture().whenCompleteAsync((result, error) -> ended(runner, result), core.mainThread);
    }

    private boolean isCurrent(JobId id, JobManagerRunner runner) {
        return core.jobs.execution(id).orElse(null) instanceof JobExecution.Running r && r.runner() == runner;
    }

    private void ended(JobManagerRunner runner, JobResult result) {
        JobId id = runner.jobId();
        if (!isCurrent(id, runner)) {
            return; // closed meanwhile (dispatcher leadership lost): the next leader finishes the job
        }
        runner.requestJobDetails().whenCompleteAsync((details, e) -> {
            if (!isCurrent(id, runner)) {
                return;
            }
            JobRecord record = core.jobs.get(id);
            ClassLoaderLease lease = ((JobExecution.Running) record.execution()).lease();
            // leaves the election; the job master has already ended; then the job's class loader may close
            releaseAfter(lease, runner.close());
            if (result == null) {
                core.jobs.enter(record, null);
                return;
            }
            recordEnded(record, result, details != null ? details : detailsOf(result));
            LOG.info("Job '{}' ({}) ended {}", runner.jobGraph().name(), id, result.status());
        }, core.mainThread);
    }

    /** The job ended (here or before): remembered with its details, and its result request answered. */
    void recordEnded(JobRecord record, JobResult result, JobDetails details) {
        core.jobs.enter(record, new JobExecution.Ended(result, details));
        record.answerResult(result);
        jobEnded.run();
    }

    /**
     * The dispatcher leadership is lost: every runner closes (its job is suspended and stays stored;
     * the new leader recovers it) and is forgotten; a later runner of the same job waits for it.
     */
    void closeAllForLostLeadership() {
        for (JobRecord record : core.jobs.inStage(JobExecution.Running.class)) {
            JobExecution.Running running = (JobExecution.Running) record.execution();
            CompletableFuture<Void> closing = running.runner().close();
            releaseAfter(running.lease(), closing);
            if (!closing.isDone()) {
                record.previousRunnerClosed(closing); // keeps the record while the runner closes
                closing.whenCompleteAsync((ignored, error) -> {
                    if (record.previousRunnerClosed() == closing) {
                        record.previousRunnerClosed(null);
                        core.jobs.forgetIfIdle(record);
                    }
                }, core.mainThread);
            }
            core.jobs.enter(record, null);
        }
    }

    /** Job manager shutdown: closes every runner; completes when all have closed. */
    CompletableFuture<Void> closeAll() {
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        for (JobRecord record : core.jobs.inStage(JobExecution.Running.class)) {
            JobExecution.Running running = (JobExecution.Running) record.execution();
            CompletableFuture<Void> done = running.runner().close();
            releaseAfter(running.lease(), done);
            closing.add(done);
        }
        return CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new));
    }

    /** Closes the class loader lease once {@code done} completes (its runner has closed). */
    private static void releaseAfter(ClassLoaderLease lease, CompletableFuture<?> done) {
        if (lease != null) {
            done.whenComplete((ignored, error) -> lease.close());
        }
    }

    /** The details of a job known only by its result (it ended before this Dispatcher ran it). */
    static JobDetails detailsOf(JobResult r) {
        return new JobDetails(r.jobId(), r.jobName(), r.status(),
                List.of(new JobStatusTransition(r.status(), r.endTimestampMillis())), List.of(), CheckpointStats.NONE,
                0, r.failureMessage(), null);
    }
}
