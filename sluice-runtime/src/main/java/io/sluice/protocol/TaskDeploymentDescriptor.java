package io.sluice.protocol;

import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;
import io.sluice.job.ExecutionAttemptId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Everything a task executor needs to run one subtask.
 *
 * @param attemptNumber how many times the job has restarted before this deployment (for user code)
 * @param restore       the state to restore, or {@code null} to start from scratch
 * @param dataAddresses the data address ({@code host:port}, see {@link TaskExecutorGateway#dataAddress()})
 *                      of the task executor running each subtask index of this deployment (slot sharing:
 *                      subtask i of every vertex runs in slot i); an element is {@code null} where that
 *                      task executor exchanges data only in memory, and the list is empty when all do
 */
public record TaskDeploymentDescriptor(JobGraph jobGraph, ExecutionAttemptId attemptId, int attemptNumber,
                                       TaskRestore restore, List<String> dataAddresses)
        implements java.io.Serializable {
    public TaskDeploymentDescriptor {
        // null elements are meaningful (in memory), so no List.copyOf
        dataAddresses = dataAddresses == null || dataAddresses.stream().allMatch(a -> a == null)
                ? List.of() : Collections.unmodifiableList(new ArrayList<>(dataAddresses));
    }

    /** A subtask whose channels are all in memory (every task executor in one JVM). */
    public TaskDeploymentDescriptor(JobGraph jobGraph, ExecutionAttemptId attemptId, int attemptNumber,
                                    TaskRestore restore) {
        this(jobGraph, attemptId, attemptNumber, restore, List.of());
    }

    public JobVertex vertex() {
        return jobGraph.vertex(attemptId.vertexId());
    }

    public int subtaskIndex() {
        return attemptId.subtaskIndex();
    }

    /** The data address of the task executor running subtask {@code subtaskIndex} of every vertex, or {@code null} (in memory). */
    public String dataAddress(int subtaskIndex) {
        return subtaskIndex < dataAddresses.size() ? dataAddresses.get(subtaskIndex) : null;
    }

    /**
     * Whether the channel between this subtask and subtask {@code peerSubtask} of another vertex
     * crosses task executors: both have data addresses and they differ.
     */
    public boolean isRemote(int peerSubtask) {
        String own = dataAddress(subtaskIndex());
        String peer = dataAddress(peerSubtask);
        return own != null && peer != null && !own.equals(peer);
    }
}
