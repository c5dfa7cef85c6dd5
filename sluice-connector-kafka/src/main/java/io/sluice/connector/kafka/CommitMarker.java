package io.sluice.connector.kafka;

import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The commit marker of one transactional id: the checkpoint whose records it committed last, and the
 * job that committed them, kept as the offset (checkpoint id) and metadata ({@code sluice job=<id>
 * at=<epoch millis>}) of the consumer group named like the id, on partition 0 of the sink's topic. It is
 * written inside the same transaction as the records, so it says exactly what is committed.
 *
 * @param checkpointId -1 if the id never committed
 * @param jobId        {@code null} if the id never committed
 */
record CommitMarker(long checkpointId, String jobId, long atMillis) {
    static final CommitMarker NONE = new CommitMarker(-1, null, 0);

    /** Whether {@code c} is already committed: same job, and not after the marker's checkpoint. */
    boolean covers(KafkaCommittable c) {
        return jobId != null && jobId.equals(c.jobId()) && c.checkpointId() <= checkpointId;
    }

    String metadata() {
        return "sluice job=" + jobId + " at=" + atMillis;
    }

    static OffsetAndMetadata offsetFor(long checkpointId, String jobId, long nowMillis) {
        return new OffsetAndMetadata(checkpointId, new CommitMarker(checkpointId, jobId, nowMillis).metadata());
    }

    /** Reads the marker of {@code group} (stable offsets only: waits out a transaction being completed). */
    static CommitMarker read(Admin admin, String group, TopicPartition markerPartition, long timeoutMillis)
            throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(
                        Map.of(group, new ListConsumerGroupOffsetsSpec().topicPartitions(java.util.List.of(markerPartition))),
                        new ListConsumerGroupOffsetsOptions().requireStable(true))
                .partitionsToOffsetAndMetadata(group).get(timeoutMillis, TimeUnit.MILLISECONDS);
        OffsetAndMetadata o = offsets == null ? null : offsets.get(markerPartition);
        if (o == null) {
            return NONE;
        }
        return parse(o.offset(), o.metadata());
    }

    static CommitMarker parse(long offset, String metadata) {
        String job = null;
        long at = 0;
        if (metadata != null) {
            for (String part : metadata.split(" ")) {
                if (part.startsWith("job=")) {
                    job = part.substring(4);
                } else if (part.startsWith("at=")) {
                    try {
                        at = Long.parseLong(part.substring(3));
                    } catch (NumberFormatException ignored) {
                        // an unknown marker format: age unknown
                    }
                }
            }
        }
        return new CommitMarker(offset, job, at);
    }
}
