package io.sluice.connector.kafka;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * A Kafka source subtask's position in a checkpoint: per assigned partition, the offset of the next
 * record to read. Format, version 1: {@code int magic "SLKO", int version, int count, count × (UTF topic,
 * int partition, long offset)}. Stateless.
 */
final class PartitionPositions {
    static final int MAGIC = 0x534C4B4F;
    static final int VERSION = 1;

    private PartitionPositions() {}

    static byte[] encode(Map<TopicPartition, Long> next) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(32 + 32 * next.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeInt(next.size());
            for (Map.Entry<TopicPartition, Long> e : next.entrySet()) {
                out.writeUTF(e.getKey().topic());
                out.writeInt(e.getKey().partition());
                out.writeLong(e.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static Map<TopicPartition, Long> decode(byte[] position) {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(position))) {
            int magic = in.readInt();
            int version = in.readInt();
            if (magic != MAGIC || version != VERSION) {
                throw new IllegalArgumentException("Kafka source: the checkpoint's position has format "
                        + Integer.toHexString(magic) + "/" + version + ", not a Kafka source position of version "
                        + VERSION + ": was the source at this place of the job replaced?");
            }
            int count = in.readInt();
            Map<TopicPartition, Long> out = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                out.put(new TopicPartition(in.readUTF(), in.readInt()), in.readLong());
            }
            return out;
        } catch (IOException e) {
            throw new IllegalArgumentException("Kafka source: the checkpoint's position is truncated (" + e + ")", e);
        }
    }

    /**
     * The subtask that reads {@code tp}: partitions of one topic go round-robin over the subtasks,
     * starting at a subtask that depends on the topic, so several topics spread evenly too.
     */
    static int subtaskOf(TopicPartition tp, int parallelism) {
        int start = Math.floorMod(tp.topic().hashCode() * 31, parallelism);
        return (start + tp.partition()) % parallelism;
    }
}
