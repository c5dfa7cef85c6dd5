package io.sluice.rest.model;

import io.sluice.protocol.JobHealth;
import io.sluice.restart.CrashLoop;

/**
 * The marks of a job that its status alone does not show, as the job list and the job detail carry
 * them (see docs/rest.md): a crash loop, and checkpoints older than {@code checkpoints.stale-after}.
 * Built from {@link JobHealth}.
 */
public final class JobHealthView {
    private JobHealthView() {}

    /**
     * {@code crashLoop}: the same error on consecutive attempts.
     *
     * @param count                the same error this many times in a row (at least 3)
     * @param sinceMillis          the first of them
     * @param lastMillis           the latest
     * @param cause                the latest root cause, {@code "ExceptionClass: message"}
     * @param origin               vertex and top stack frame, or {@code null}
     * @param kind                 PROCESSING, RESTORE or RESTORE_NEVER_SUCCEEDS
     * @param restoreCheckpointId  the checkpoint every attempt failed to restore from, or {@code null}
     * @param restoreNeverSucceeds no restart can fix it: retried only every 5 min; the operator must act
     * @param summary              "crash loop: the same error N times since T: ..."
     * @param advice               what the operator can do
     */
    public record CrashLoopView(int count, long sinceMillis, long lastMillis, String cause, String origin, String kind,
                                Long restoreCheckpointId, boolean restoreNeverSucceeds, String summary, String advice) {
        static CrashLoopView of(CrashLoop c) {
            return c == null ? null : new CrashLoopView(c.count(), c.sinceMillis(), c.lastMillis(), c.cause(), c.origin(),
                    c.kind().name(), c.restoreCheckpointId() < 0 ? null : c.restoreCheckpointId(),
                    c.restoreNeverSucceeds(), c.summary(), c.advice());
        }
    }

    /**
     * {@code checkpointsStale}: the latest completed checkpoint is older than the threshold.
     *
     * @param sinceMillis    the latest completed checkpoint, or the job's start when none completed
     * @param thresholdMillis {@code checkpoints.stale-after} in force for the job
     * @param summary        "no checkpoint since T"
     */
    public record StaleCheckpointsView(long sinceMillis, long thresholdMillis, String summary) {
        static StaleCheckpointsView of(JobHealth h) {
            return h.checkpointsStale() ? new StaleCheckpointsView(h.noCheckpointSinceMillis(), h.staleAfterMillis(),
                    h.staleSummary()) : null;
        }
    }
}
