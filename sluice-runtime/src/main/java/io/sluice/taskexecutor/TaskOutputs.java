package io.sluice.taskexecutor;

import io.sluice.api.functions.KeySelector;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.graph.JobEdge;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;
import io.sluice.graph.VertexPayload;
import io.sluice.network.ChannelKey;
import io.sluice.network.LocalChannel;
import io.sluice.network.Partitioner;
import io.sluice.network.RecordWriter;
import io.sluice.operators.Output;
import io.sluice.operators.RecordTimestamp;
import io.sluice.protocol.TaskDeploymentDescriptor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The record writers of a task, one per output edge, and the output at the end of its operator
 * chain that writes to them. Made on the task thread while {@code DEPLOYING}; its writers are read
 * racily by other threads for metrics.
 *
 * @param all  every writer, in the order of the vertex's output edges
 * @param main the writers of the edges that read the main output
 * @param side per side output id, the writers of the edges that read it
 */
record TaskOutputs(List<RecordWriter<?>> all, List<RecordWriter<?>> main, Map<String, List<RecordWriter<?>>> side) {

    /** Acquires the output channels of every output edge and puts a record writer on each edge. Task thread. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static TaskOutputs create(TaskDeploymentDescriptor tdd, VertexPayload payload, TaskChannels channels,
                              RecordTimestamp recordTimestamp) {
        JobGraph graph = tdd.jobGraph();
        JobVertex vertex = tdd.vertex();
        List<RecordWriter<?>> all = new ArrayList<>();
        List<RecordWriter<?>> main = new ArrayList<>();
        Map<String, List<RecordWriter<?>>> side = new HashMap<>();
        for (int edgeId : vertex.outputEdgeIds()) {
            JobEdge edge = graph.edge(edgeId);
            VertexPayload.OutputSpec spec = payload.outputs().get(edgeId);
            int consumers = graph.vertex(edge.targetVertexId()).parallelism();
            Partitioner partitioner = switch (edge.partitioning()) {
                case FORWARD -> Partitioner.forward();
                case REBALANCE -> Partitioner.rebalance();
                case HASH -> Partitioner.hash((KeySelector) spec.keySelector(), vertex.maxParallelism());
            };
            List<LocalChannel> edgeChannels = new ArrayList<>();
            for (int consumer : partitioner.consumerSubtasks(tdd.subtaskIndex(), consumers)) {
                edgeChannels.add(channels.output(new ChannelKey(graph.jobId(), tdd.attemptId().deployment(), edgeId,
                        tdd.subtaskIndex(), consumer)));
            }
            RecordWriter<?> writer = new RecordWriter<>(edgeChannels, (TypeSerializer) spec.serializer(), partitioner,
                    channels.bufferSize(), spec.timestamped() ? recordTimestamp : null, channels.inFlightTarget(),
                    System::nanoTime);
            all.add(writer);
            if (spec.sideOutput() == null) {
                main.add(writer);
            } else {
                side.computeIfAbsent(spec.sideOutput(), k -> new ArrayList<>()).add(writer);
            }
        }
        return new TaskOutputs(List.copyOf(all), main, side);
    }

    /** The output at the end of the chain: to the writers, or nowhere for a task without output edges. */
    Output<?> chainEnd() {
        return all.isEmpty() ? record -> { } : new WriterOutput<>(main, side);
    }

    /** Hands partly filled buffers on to the channels. Task thread. */
    void flush() throws InterruptedException {
        for (RecordWriter<?> w : all) {
            w.flushAll();
        }
    }

    /** Ends every output (end of partition). Task thread. */
    void close() throws InterruptedException {
        for (RecordWriter<?> w : all) {
            w.close();
        }
    }

    /** Records written to the output channels so far. Any thread (racy read). */
    long recordsWritten() {
        long out = 0;
        for (RecordWriter<?> w : all) {
            out += w.recordsWritten();
        }
        return out;
    }

    /**
     * The smallest size at which the writers hand buffers over now (the buffer size unless
     * backpressure made it smaller), or 0 without outputs. Any thread (racy read).
     */
    int handOverSize() {
        int min = 0;
        for (RecordWriter<?> w : all) {
            int size = w.handOverSize();
            min = min == 0 ? size : Math.min(min, size);
        }
        return min;
    }

    /** Time the outputs were blocked on full channels (backpressure), in nanoseconds. Any thread. */
    long blockedNanos() {
        long sum = 0;
        for (RecordWriter<?> w : all) {
            sum += w.blockedNanos();
        }
        return sum;
    }
}
