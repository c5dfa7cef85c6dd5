package io.sluice.cli.demo;

import io.sluice.checkpoint.CheckpointStats;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.protocol.JobStatusTransition;
import java.io.PrintWriter;
import java.util.Locale;

/** Prints how the demo job went: final status, status timeline, restarts and checkpoints. */
final class DemoSummary {
    private DemoSummary() {}

    static void print(PrintWriter out, JobResult result, JobDetails details, long submittedAtMillis,
                      int failuresPlanned, int failuresThrown) {
        out.println();
        out.printf(Locale.ROOT, "Job %s after %.1f s.%n", result.status(),
                (result.endTimestampMillis() - submittedAtMillis) / 1000.0);
        out.println("Status timeline (time since submission):");
        for (JobStatusTransition t : details.transitions()) {
            out.printf(Locale.ROOT, "  %+8.3f s  %s%n", (t.timestampMillis() - submittedAtMillis) / 1000.0, t.status());
        }
        out.printf("Restarts:    %d (%d of %d injected failures thrown)%n", details.restarts(), failuresThrown,
                failuresPlanned);
        if (details.restarts() < failuresThrown) {
            out.println("             (a failure during a restart needs no restart of its own)");
        }
        CheckpointStats cp = details.checkpoints();
        out.printf("Checkpoints: %d completed, %d failed", cp.completed(), cp.failed());
        if (cp.latestCompletedId() >= 0) {
            out.printf("; the latest, #%d, took %d ms", cp.latestCompletedId(), cp.latestDurationMillis());
        }
        out.println();
        if (cp.lastFailure() != null) {
            out.println("Last checkpoint failure: " + cp.lastFailure());
        }
        if (details.failureMessage() != null) {
            out.println("Last task failure: " + details.failureMessage());
        }
    }
}
