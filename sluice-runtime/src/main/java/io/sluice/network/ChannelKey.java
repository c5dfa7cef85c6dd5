package io.sluice.network;

import io.sluice.graph.JobId;
import java.util.Objects;

/**
 * Names one channel: the edge {@code edgeId} of job attempt {@code attempt}, from producer subtask
 * {@code producerSubtask} to consumer subtask {@code consumerSubtask}. Immutable.
 */
public record ChannelKey(JobId jobId, int attempt, int edgeId, int producerSubtask, int consumerSubtask) {
    public ChannelKey {
        Objects.requireNonNull(jobId, "jobId");
        if (attempt < 0 || edgeId < 0 || producerSubtask < 0 || consumerSubtask < 0) {
            throw new IllegalArgumentException("Attempt, edge id and subtask indexes are not negative: attempt="
                    + attempt + ", edge=" + edgeId + ", producer=" + producerSubtask + ", consumer=" + consumerSubtask);
        }
    }

    @Override
    public String toString() {
        return "job " + jobId + " attempt " + attempt + " edge " + edgeId + " subtask " + producerSubtask + "->"
                + consumerSubtask;
    }
}
