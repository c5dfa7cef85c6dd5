package io.sluice.graph;

import java.io.Serializable;
import java.util.List;

/**
 * A chain of operators that runs as {@link #parallelism()} parallel subtasks.
 *
 * <p>The user code (source, operators, serializers, key selectors) is kept as Java-serialized
 * bytes ({@link #payload()}), checked once when the graph is built: each deployed subtask
 * deserializes its own copy, so subtasks and restarts never share user objects.
 */
public record JobVertex(int id, String name, int parallelism, int maxParallelism, boolean isSource,
                        boolean hasKeyedState, List<Integer> inputEdgeIds, List<Integer> outputEdgeIds,
                        byte[] payload) implements Serializable {
    public JobVertex {
        inputEdgeIds = List.copyOf(inputEdgeIds);
        outputEdgeIds = List.copyOf(outputEdgeIds);
    }

    public VertexPayload deserializePayload(ClassLoader classLoader) {
        return VertexPayload.deserialize(payload, classLoader, name);
    }

    @Override
    public String toString() {
        return "JobVertex{" + id + " '" + name + "' x" + parallelism + "}";
    }
}
