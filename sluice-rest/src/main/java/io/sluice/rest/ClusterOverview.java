package io.sluice.rest;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What {@code GET /v1/overview} answers.
 *
 * @param version       the Sluice version of this process
 * @param leader        the job manager that leads the dispatcher, as the HA services name it
 * @param taskExecutors every task executor with its slots
 */
public record ClusterOverview(String version, Leader leader, List<TaskExecutorInfo> taskExecutors, int slotsTotal,
                              int slotsFree, JobCounts jobs) {
    public ClusterOverview {
        taskExecutors = List.copyOf(taskExecutors);
    }

    /**
     * @param contenderId the leading job manager's id, or {@code null} while none leads
     * @param isThisNode  whether that job manager runs in this process
     */
    public record Leader(@Nullable String contenderId, boolean isThisNode) {
    }

    public record TaskExecutorInfo(String id, int slots, int slotsFree) {
    }

    /** Jobs by status; {@code running} also counts CREATED, RESTARTING, FAILING and CANCELLING jobs. */
    public record JobCounts(int total, int running, int initializing, int finished, int failed, int canceled) {
    }
}
