package io.sluice.graph;

import java.io.Serializable;
import java.util.List;

/**
 * A chain of operators that runs as {@link #parallelism()} parallel subtasks.
 *
 * <p>The user code (source, operators, serializers, key selectors) is kept as Java-serialized
 * bytes ({@link #payload()}), checked once when the graph is built: each deployed subtask
 * deserializes its own copy, so subtasks and restarts never share user objects.
 *
 * @param redistributesSourcePositions a source vertex whose source may be restored at another parallelism
 *                                     ({@link io.sluice.api.source.Source#redistributesPositions()}), read when
 *                                     the graph was built so that the job master needs no user code for it
 */
public record JobVertex(int id, String name, int parallelism, int maxParallelism, boolean isSource,
                        boolean hasKeyedState, List<Integer> inputEdgeIds, List<Integer> outputEdgeIds,
                        byte[] payload, boolean redistributesSourcePositions) implements Serializable {
    public JobVertex {
        inputEdgeIds = List.copyOf(inputEdgeIds);
        outputEdgeIds = List.copyOf(outputEdgeIds);
    }

    /** A vertex whose source (if any) does not redistribute its positions. */
    public JobVertex(int id, String name, int parallelism, int maxParallelism, boolean isSource, boolean hasKeyedState,
                     List<Integer> inputEdgeIds, List<Integer> outputEdgeIds, byte[] payload) {
        this(id, name, parallelism, maxParallelism, isSource, hasKeyedState, inputEdgeIds, outputEdgeIds, payload, false);
    }

    public VertexPayload deserializePayload(ClassLoader classLoader) {
        return VertexPayload.deserialize(payload, classLoader, name);
    }

    @Override
    public String toString() {
        return "JobVertex{" + id + " '" + name + "' x" + parallelism + "}";
    }
}
