package io.sluice.cli.demo;

import io.sluice.cli.common.ExitCodes;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Durations;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Runs one demo: starts an embedded {@link LocalCluster}, submits the {@link DemoJob}, prints a
 * progress line per tick until the job ends, then the summary and the {@link CountCheck}.
 */
final class DemoRunner {
    static final long TICK_MILLIS = 500;
    private static final long REQUEST_TIMEOUT_MILLIS = 10_000;

    private final DemoSettings settings;
    private final PrintWriter out;
    private final PrintWriter err;
    /** Set when the demo cancelled the job because of --timeout. */
    private boolean timedOut;

    DemoRunner(DemoSettings settings, PrintWriter out, PrintWriter err) {
        this.settings = settings;
        this.out = out;
        this.err = err;
    }

    /** Returns one of {@link ExitCodes}. */
    int run() throws Exception {
        try (DemoJob job = new DemoJob(settings);
             LocalCluster cluster = LocalCluster.builder()
                     .taskExecutors(settings.taskExecutors())
                     .slotsPerTaskExecutor(settings.slots())
                     .seed(settings.seed())
                     .build()) {
            printIntro(job);
            long submittedAt = System.currentTimeMillis();
            JobId id;
            try {
                id = cluster.submit(job.graph());
            } catch (ExecutionException e) {
                err.println("The demo job was rejected: " + e.getCause().getMessage());
                err.println("(The demo writes checkpoints under " + settings.checkpointDir() + "; choose another"
                        + " directory with --checkpoint-dir.)");
                err.flush();
                return ExitCodes.JOB_FAILED;
            }
            DispatcherGateway dispatcher = cluster.dispatcher();
            JobResult result = awaitWithProgress(dispatcher, id, job, submittedAt);
            JobDetails details = dispatcher.requestJobDetails(id).get(REQUEST_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            printProgress(job, details, result.endTimestampMillis() - submittedAt);
            DemoSummary.print(out, result, details, submittedAt, settings.failures(), job.failuresThrown());
            return verdict(result, job);
        } finally {
            out.flush();
            err.flush();
        }
    }

    private void printIntro(DemoJob job) {
        out.printf(Locale.ROOT, "Sluice demo: counting %,d records over %d keys, parallelism %d, %s%n",
                settings.records(), settings.keys(), settings.parallelism(),
                settings.rate() > 0 ? String.format(Locale.ROOT, "%,d records/s", settings.rate()) : "unlimited rate");
        String positions = job.failAt().stream().map(String::valueOf).collect(Collectors.joining(", "));
        out.printf("Failures:    %d injected, at records [%s] (seed %d; repeat with --seed %d)%n",
                settings.failures(), positions, settings.seed(), settings.seed());
        out.printf("Checkpoints: every %s under %s%n", Durations.format(settings.checkpointInterval()),
                settings.checkpointDir());
        out.printf("Cluster:     embedded, %d task executors x %d slots%n", settings.taskExecutors(), settings.slots());
        LogFile.location().ifPresent(file -> out.println("Log:         " + file));
        out.println("Progress (record counts are per attempt: they start again from 0 after a restart,"
                + " while the source resumes from the checkpoint):");
        out.flush();
    }

    private JobResult awaitWithProgress(DispatcherGateway dispatcher, JobId id, DemoJob job, long submittedAt)
            throws InterruptedException, ExecutionException, TimeoutException {
        CompletableFuture<JobResult> result = dispatcher.requestJobResult(id);
        long deadline = submittedAt + settings.timeout().toMillis();
        long nextTick = submittedAt + TICK_MILLIS;
        int restartsReported = 0;
        while (true) {
            try {
                return result.get(Math.max(1, nextTick - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
            } catch (TimeoutException tick) {
                // time for a progress line
            }
            long now = System.currentTimeMillis();
            while (nextTick <= now) {
                nextTick += TICK_MILLIS; // a late tick (e.g. a slow status answer) skips ticks rather than bunching them
            }
            try {
                JobDetails details = dispatcher.requestJobDetails(id).get(REQUEST_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
                if (details.restarts() > restartsReported) {
                    restartsReported = details.restarts();
                    out.printf("          restart %d after: %s%n", restartsReported, details.failureMessage());
                }
                printProgress(job, details, now - submittedAt);
            } catch (ExecutionException | TimeoutException e) {
                out.println(ProgressLine.unavailable(now - submittedAt, e));
                out.flush();
            }
            if (!timedOut && now >= deadline) {
                out.printf("The job has not ended after %s (--timeout); cancelling it.%n",
                        Durations.format(settings.timeout()));
                dispatcher.cancelJob(id);
                timedOut = true;
            }
        }
    }

    private void printProgress(DemoJob job, JobDetails details, long elapsedMillis) {
        out.println(ProgressLine.format(elapsedMillis, details, job.sourceRecords(details), job.countedRecords(details)));
        out.flush();
    }

    private int verdict(JobResult result, DemoJob job) {
        if (result.status() != JobStatus.FINISHED) {
            if (result.failureMessage() != null) {
                out.printf("The job ended %s: %s%n", result.status(), result.failureMessage());
                LogFile.location().ifPresent(file -> out.println("The full stack trace is in " + file));
            } else {
                out.printf("The job ended %s: %s%n", result.status(), timedOut
                        ? "the demo cancelled it after --timeout " + Durations.format(settings.timeout())
                        : "it was cancelled");
            }
            return ExitCodes.JOB_FAILED;
        }
        out.println();
        out.println("Checking the final count of every key (the last count the sink saw) against the expected count...");
        CountCheck check = CountCheck.compare(job.expectedCounts(), job.finalCounts());
        check.print(out);
        if (!check.passed()) {
            out.printf("Exactly-once state NOT verified. Repeat this run with --seed %d%s.%n", settings.seed(),
                    LogFile.location().map(file -> "; the log is in " + file).orElse(""));
            return ExitCodes.VERIFICATION_FAILED;
        }
        return ExitCodes.OK;
    }
}
