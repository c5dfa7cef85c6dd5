package io.sluice.connector.kafka;

import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.TypeSerializer;
import org.jspecify.annotations.Nullable;

/**
 * What an exactly-once Kafka sink subtask pre-committed at one checkpoint: the records it received
 * between two barriers, already serialized ({@code batch}: {@code recordCount} × (bytes key or -1,
 * bytes value or -1)). Once the checkpoint completes they become visible in one transaction: the open
 * transaction the writer sent them into while they arrived ({@code openTransaction}), or, without one
 * (restored from a checkpoint, or that transaction failed), a new one that writes the batch.
 *
 * @param originSubtask the subtask that wrote it: its transactional id and commit marker are
 *                      {@code <prefix>-<originSubtask>}, also when another subtask commits it after the
 *                      parallelism was lowered
 * @param checkpointId  the checkpoint at whose barrier it was pre-committed; the commit marker's value
 * @param jobId         the job that wrote it (shown in the marker, for the prefix-clash check)
 * @param openTransaction the transaction that holds the records already, in the attempt that wrote them;
 *                        never written into a checkpoint
 */
public record KafkaCommittable(int originSubtask, long checkpointId, String jobId, int recordCount, byte[] batch,
                               @Nullable OpenTransaction openTransaction) {

    /** A committable whose records only its batch holds (written again in a new transaction at commit). */
    public KafkaCommittable(int originSubtask, long checkpointId, String jobId, int recordCount, byte[] batch) {
        this(originSubtask, checkpointId, jobId, recordCount, batch, null);
    }

    /** Writes committables into checkpoints: format byte 1, then the fields in order. */
    static final class Serializer implements TypeSerializer<KafkaCommittable> {
        private static final long serialVersionUID = 1L;

        @Override
        public void serialize(KafkaCommittable c, DataOutputBuffer out) {
            out.writeByte(1);
            out.writeInt(c.originSubtask());
            out.writeLong(c.checkpointId());
            out.writeUTF(c.jobId());
            out.writeInt(c.recordCount());
            out.writeBytes(c.batch());
        }

        @Override
        public KafkaCommittable deserialize(DataInputBuffer in) {
            int version = in.readByte();
            if (version != 1) {
                throw new IllegalStateException("Kafka sink: unknown committable format version " + version
                        + "; restore with the Sluice version that wrote the checkpoint");
            }
            return new KafkaCommittable(in.readInt(), in.readLong(), in.readUTF(), in.readInt(), in.readBytes());
        }

        @Override
        public String typeName() {
            return "KafkaCommittable";
        }
    }

    @Override
    public String toString() {
        return "KafkaCommittable{subtask " + originSubtask + ", checkpoint " + checkpointId + ", " + recordCount
                + " records, " + batch.length + " bytes" + (openTransaction == null ? "" : ", in " + openTransaction) + "}";
    }
}
