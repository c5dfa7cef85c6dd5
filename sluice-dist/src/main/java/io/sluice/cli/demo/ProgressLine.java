package io.sluice.cli.demo;

import io.sluice.checkpoint.CheckpointStats;
import io.sluice.protocol.JobDetails;
import java.util.Locale;

/** Formats the one line the demo prints per progress tick. */
final class ProgressLine {
    private ProgressLine() {}

    /**
     * For example {@code [  3.5 s] RUNNING       source out 1,000,000  counted 998,976  checkpoints 6 ok, 0 failed  restarts 1}.
     */
    static String format(long elapsedMillis, JobDetails details, long sourceRecords, long countedRecords) {
        CheckpointStats cp = details.checkpoints();
        return String.format(Locale.ROOT,
                "[%5.1f s] %-12s  source out %,11d  counted %,11d  checkpoints %3d ok, %d failed  restarts %d",
                elapsedMillis / 1000.0, details.status(), sourceRecords, countedRecords, cp.completed(), cp.failed(),
                details.restarts());
    }

    /** The line for a tick at which the job's details could not be read. */
    static String unavailable(long elapsedMillis, Throwable error) {
        return String.format(Locale.ROOT, "[%5.1f s] (status unavailable: %s)", elapsedMillis / 1000.0, error);
    }
}
