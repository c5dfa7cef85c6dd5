package io.sluice.chaos;

import io.sluice.examples.KeyedCountingJob;
import io.sluice.job.JobStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The invariants every chaos run must keep (issue 10, "How it is checked"). Each violation is one
 * line naming the invariant, the job and what was seen. Stateless.
 */
final class ChaosInvariants {
    /** The invariants, by name, for reports and for choosing what a test enforces. */
    enum Invariant {
        /** Every job ends once storage is healed (within the run's end timeout). */
        ENDS,
        /** A job the plan did not cancel ends FINISHED: no fault of the plan may end a job. */
        NOT_CANCELLED_FINISHES,
        /** A FINISHED job's state is exact: the last count per key is the record count per key. */
        EXACT_STATE,
        /** No deployment of a job starts after its result was durable, nor after a restart on the same HA directory. */
        NO_RERUN_AFTER_RESULT,
        /** A job that completed a checkpoint keeps it unless it FINISHED or the user cancelled it. */
        CHECKPOINTS_KEPT,
        /** Two deployments of one job never process records at the same time. */
        ONE_DEPLOYMENT_AT_A_TIME,
        /**
         * A FINISHED job leaves no checkpoint pointers behind in the HA directory, and no checkpoint
         * files: if storage was down when it ended, it deletes them once storage is back.
         */
        FINISHED_CLEANS_UP
    }

    record Violation(Invariant invariant, String message) {
        @Override
        public String toString() {
            return invariant + ": " + message;
        }
    }

    private ChaosInvariants() {}

    static List<Violation> check(ChaosReport report) {
        List<Violation> out = new ArrayList<>();
        Map<Long, Long> expected = KeyedCountingJob.expectedCounts(report.settings().records(), ChaosSettings.KEYS);
        for (ChaosReport.JobOutcome job : report.jobs()) {
            String name = "job " + job.index() + " (" + job.id() + ")";
            if (job.result() == null) {
                out.add(new Violation(Invariant.ENDS, name + " did not end within "
                        + report.settings().endTimeout() + " after storage was healed; its status said: "
                        + job.lastStatus()));
            } else {
                JobStatus status = job.result().status();
                if (!job.cancelled() && status != JobStatus.FINISHED) {
                    out.add(new Violation(Invariant.NOT_CANCELLED_FINISHES, name + " ended " + status + ": "
                            + job.result().failureMessage()));
                }
                if (status == JobStatus.FINISHED && !job.lastCounts().equals(expected)) {
                    out.add(new Violation(Invariant.EXACT_STATE, name + " FINISHED with counts " + job.lastCounts()
                            + ", expected " + expected));
                }
                long end = job.result().endTimestampMillis();
                for (DeploymentLog.Span span : job.spans()) {
                    if (span.firstWallMillis > end) {
                        out.add(new Violation(Invariant.NO_RERUN_AFTER_RESULT, name + ": " + span
                                + " started at " + span.firstWallMillis + ", after its result (" + status + " at "
                                + end + ")"));
                    }
                }
                if (job.deploymentsAfterRestart() > 0) {
                    out.add(new Violation(Invariant.NO_RERUN_AFTER_RESULT, name + " ran again ("
                            + job.deploymentsAfterRestart() + " deployment(s)) after a restart on the same HA"
                            + " directory, although its result (" + status + ") was stored"));
                }
                // Files can only be deleted while storage answers: a job that FINISHED during an outage
                // retries the deletion until storage is back (the run waits for that after the heal).
                if (status == JobStatus.FINISHED && (!job.retainedPointers().isEmpty()
                        || !job.retainedCheckpoints().isEmpty())) {
                    out.add(new Violation(Invariant.FINISHED_CLEANS_UP, name + " FINISHED but left checkpoint pointers "
                            + job.retainedPointers() + " (and checkpoints " + job.retainedCheckpoints() + ")"));
                }
                boolean mayDelete = status == JobStatus.FINISHED || job.cancelled();
                if (!mayDelete && job.maxCompleted() > 0
                        && (job.retainedPointers().isEmpty() || job.retainedCheckpoints().isEmpty())) {
                    out.add(new Violation(Invariant.CHECKPOINTS_KEPT, name + " ended " + status + " after "
                            + job.maxCompleted() + " completed checkpoint(s), but left " + job.retainedPointers().size()
                            + " pointer(s) and " + job.retainedCheckpoints().size() + " checkpoint(s)"));
                }
            }
            // Spans are ordered by their first record; each must start after every earlier one ended.
            DeploymentLog.Span latestEnding = null;
            for (DeploymentLog.Span span : job.spans()) {
                if (latestEnding != null && span.firstNanos <= latestEnding.lastNanos) {
                    out.add(new Violation(Invariant.ONE_DEPLOYMENT_AT_A_TIME, name + ": " + span
                            + " processed records while " + latestEnding + " still did"));
                }
                if (latestEnding == null || span.lastNanos > latestEnding.lastNanos) {
                    latestEnding = span;
                }
            }
        }
        return out;
    }
}
