package io.sluice.chaos;

import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import java.util.List;
import java.util.Map;

/**
 * What one chaos run observed, for {@link ChaosInvariants}.
 *
 * @param plan the plan that ran (its seed replays it)
 * @param jobs one entry per job
 * @param changelogSegmentsWritten RocksDB changelog segments uploaded in the run (0 unless its settings take
 *                                 changelog checkpoints)
 */
record ChaosReport(ChaosPlan plan, ChaosSettings settings, List<JobOutcome> jobs, long changelogSegmentsWritten) {
    /**
     * @param result              the job's result, or null if it did not end in time
     * @param cancelled           whether the plan cancelled it (the user asked)
     * @param maxCompleted        the most completed checkpoints its status ever reported
     * @param spans               its deployments, by first record
     * @param deploymentsAfterRestart deployments seen after the cluster was restarted on the same HA directory
     * @param lastCounts          last count emitted per key
     * @param retainedPointers    checkpoint pointers left in the HA directory at the end
     * @param retainedCheckpoints {@code chk-*} directories left in checkpoint storage at the end
     * @param corruptedFiles      the state files the plan corrupted ({@code chk-N/<file>})
     * @param storageDownAtEnd    checkpoint storage was down when the job ended (or within a second after)
     * @param unusableRestores    fallbacks past a checkpoint with an unusable state file (from the job's status)
     * @param lastStatus          what the job's status said at the last poll (state, failure, recovery)
     * @param storageHistory      the metadata writes and deletions of the job's checkpoint files, in order
     */
    record JobOutcome(int index, JobId id, String tag, JobResult result, boolean cancelled, long maxCompleted,
                      List<DeploymentLog.Span> spans, int deploymentsAfterRestart, Map<Long, Long> lastCounts,
                      List<String> retainedPointers, List<String> retainedCheckpoints, List<String> corruptedFiles,
                      boolean storageDownAtEnd, List<String> unusableRestores, String lastStatus,
                      List<StorageJournal.Entry> storageHistory) {
        @Override
        public String toString() {
            return "job " + index + " " + id + ": " + (result == null ? "did not end" : result.status()
                    + (result.failureMessage() != null ? " (" + result.failureMessage() + ")" : ""))
                    + (cancelled ? ", cancelled by the plan" : "") + ", checkpoints completed " + maxCompleted
                    + ", deployments " + spans.size() + ", after restart " + deploymentsAfterRestart
                    + ", pointers left " + retainedPointers.size() + ", checkpoints left " + retainedCheckpoints.size()
                    + (storageDownAtEnd ? " (storage was down when it ended)" : "")
                    + (corruptedFiles.isEmpty() ? "" : ", corrupted " + corruptedFiles + ", restores that hit a"
                    + " corrupt file " + unusableRestores.size() + " " + unusableRestores);
        }

        /**
         * Everything that explains how the job's checkpoints ended up as they are, one item a line:
         * its last status, the pointers and {@code chk-*} directories left, and who wrote or deleted
         * which checkpoint files when. Printed for the jobs of a failed run.
         */
        public String diagnosis() {
            StringBuilder b = new StringBuilder("job " + index + " " + id + ": last status " + lastStatus
                    + "\n  pointers left " + retainedPointers + ", checkpoint directories left " + retainedCheckpoints
                    + "\n  checkpoint storage history (metadata written, files deleted):");
            if (storageHistory.isEmpty()) {
                b.append(" none");
            }
            storageHistory.forEach(e -> b.append("\n    ").append(e));
            return b.toString();
        }
    }
}
