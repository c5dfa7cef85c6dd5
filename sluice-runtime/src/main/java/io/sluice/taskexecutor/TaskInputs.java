package io.sluice.taskexecutor;

import io.sluice.core.serialization.TypeSerializer;
import io.sluice.graph.JobEdge;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;
import io.sluice.graph.PartitionKind;
import io.sluice.graph.VertexPayload;
import io.sluice.network.ChannelKey;
import io.sluice.network.InputGate;
import io.sluice.network.LocalChannel;
import io.sluice.protocol.TaskDeploymentDescriptor;
import java.util.ArrayList;
import java.util.List;

/**
 * The input side of a task that reads other tasks: one gate over all its input channels, with the
 * serializer of each channel and whether its records carry event timestamps. Made on the task
 * thread while {@code DEPLOYING}.
 *
 * @param gate        the gate, or {@code null} for a task without input edges (a source)
 * @param serializers per channel of the gate, the serializer of its records
 * @param timestamped per channel of the gate, whether its records carry timestamps
 */
record TaskInputs(InputGate gate, List<TypeSerializer<?>> serializers, boolean[] timestamped) {

    /** Acquires the input channels of every input edge (one per producer, one for a forward edge). Task thread. */
    static TaskInputs create(TaskDeploymentDescriptor tdd, VertexPayload payload, TaskChannels channels, String taskName) {
        JobGraph graph = tdd.jobGraph();
        JobVertex vertex = tdd.vertex();
        int subtask = tdd.subtaskIndex();
        int deployment = tdd.attemptId().deployment();
        List<LocalChannel> inChannels = new ArrayList<>();
        List<TypeSerializer<?>> serializers = new ArrayList<>();
        List<Boolean> timestamped = new ArrayList<>();
        for (int edgeId : vertex.inputEdgeIds()) {
            JobEdge edge = graph.edge(edgeId);
            TypeSerializer<?> serializer = payload.inputSerializers().get(edgeId);
            boolean stamped = payload.timestampedInputs().contains(edgeId);
            boolean forward = edge.partitioning() == PartitionKind.FORWARD;
            int producers = forward ? 1 : graph.vertex(edge.sourceVertexId()).parallelism();
            for (int p = 0; p < producers; p++) {
                int producer = forward ? subtask : p;
                inChannels.add(channels.input(new ChannelKey(graph.jobId(), deployment, edgeId, producer, subtask)));
                serializers.add(serializer);
                timestamped.add(stamped);
            }
        }
        boolean[] flags = new boolean[timestamped.size()];
        for (int i = 0; i < flags.length; i++) {
            flags[i] = timestamped.get(i);
        }
        InputGate gate = inChannels.isEmpty() ? null : channels.inputGate(taskName, inChannels);
        return new TaskInputs(gate, serializers, flags);
    }
}
