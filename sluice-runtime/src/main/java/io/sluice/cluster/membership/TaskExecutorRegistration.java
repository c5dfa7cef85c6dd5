package io.sluice.cluster.membership;

import java.io.Serializable;
import java.util.Objects;

/**
 * What a task executor tells the job manager when it registers (sent with its
 * {@link io.sluice.protocol.TaskExecutorGateway}, which travels by reference). Serializable.
 *
 * @param taskExecutorId the task executor's id, stable across restarts of its process (e.g. its host name)
 * @param instanceId     a new random id for every start of its process: the job manager sees a restart by it
 * @param slots          the slots it offers
 * @param dataAddress    {@code host:port} of its data server, or {@code null} when its channels are in memory
 * @param clusterId      the {@code high-availability.cluster-id} it was configured with
 */
public record TaskExecutorRegistration(String taskExecutorId, String instanceId, int slots, String dataAddress,
                                       String clusterId) implements Serializable {
    public TaskExecutorRegistration {
        Objects.requireNonNull(taskExecutorId, "taskExecutorId");
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(clusterId, "clusterId");
        if (slots < 1) {
            throw new IllegalArgumentException("Task executor " + taskExecutorId + " must offer at least one slot, got "
                    + slots);
        }
    }
}
