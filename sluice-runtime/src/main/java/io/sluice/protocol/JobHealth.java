package io.sluice.protocol;

import io.sluice.restart.CrashLoop;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What is wrong with a job that its status alone does not say: a crash loop, and checkpoints that
 * have not completed for longer than the job's threshold ({@code checkpoints.stale-after}). Shown
 * in job details and in every line of the job list, so that a job restarting for ever or no longer
 * checkpointing is not just a green RUNNING. Immutable.
 *
 * @param crashLoop              the crash loop the job is in, or {@code null}
 * @param noCheckpointSinceMillis while checkpoints are stale: wall-clock time of the latest completed
 *                               checkpoint, or of the job's start under its job master when none completed; else -1
 * @param staleAfterMillis       the threshold: a job whose latest checkpoint is older is stale; 0 when the job
 *                               does not checkpoint
 */
public record JobHealth(CrashLoop crashLoop, long noCheckpointSinceMillis, long staleAfterMillis)
        implements java.io.Serializable {
    public static final JobHealth NONE = new JobHealth(null, -1, 0);

    /** Whether the latest completed checkpoint is older than the threshold. */
    public boolean checkpointsStale() {
        return noCheckpointSinceMillis >= 0;
    }

    /** {@code "no checkpoint since 2026-12-03T06:40:00Z"}, or {@code null} while checkpoints are recent. */
    public String staleSummary() {
        return checkpointsStale() ? "no checkpoint since " + Instant.ofEpochMilli(noCheckpointSinceMillis) : null;
    }

    /** The one-line marks, crash loop first; empty when all is well. */
    public List<String> marks() {
        List<String> out = new ArrayList<>(2);
        if (crashLoop != null) {
            out.add(crashLoop.summary());
        }
        if (checkpointsStale()) {
            out.add(staleSummary());
        }
        return out;
    }
}
