package io.sluice.connector.kafka.format;

import java.io.Serializable;

/**
 * A Kafka record that did not deserialize, as the side output of the
 * {@linkplain DeserializationErrorPolicy#sideOutput side-output policy} carries it: where it is, its raw
 * bytes and why it failed. Immutable (the arrays are not copied: do not modify them).
 */
public record FailedRecord(String topic, int partition, long offset, long timestamp, byte[] key, byte[] value,
                           String error) implements Serializable {
    /** A side output of failed records, written with {@link Serializer} (for {@link DeserializationErrorPolicy#sideOutput}). */
    public static io.sluice.api.functions.OutputTag<FailedRecord> tag(String id) {
        return new io.sluice.api.functions.OutputTag<>(id, new Serializer());
    }

    /** Writes a failed record between tasks: its fields in order, the arrays length-prefixed. */
    public static final class Serializer implements io.sluice.core.serialization.TypeSerializer<FailedRecord> {
        private static final long serialVersionUID = 1L;

        @Override
        public void serialize(FailedRecord r, io.sluice.core.serialization.DataOutputBuffer out) {
            out.writeUTF(r.topic());
            out.writeInt(r.partition());
            out.writeLong(r.offset());
            out.writeLong(r.timestamp());
            out.writeBytes(r.key());
            out.writeBytes(r.value());
            out.writeUTF(r.error());
        }

        @Override
        public FailedRecord deserialize(io.sluice.core.serialization.DataInputBuffer in) {
            return new FailedRecord(in.readUTF(), in.readInt(), in.readLong(), in.readLong(), in.readBytes(),
                    in.readBytes(), in.readUTF());
        }

        @Override
        public FailedRecord copy(FailedRecord value) {
            return value; // immutable by contract
        }

        @Override
        public String typeName() {
            return "FailedRecord";
        }
    }

    @Override
    public String toString() {
        return "FailedRecord{" + topic + "-" + partition + "@" + offset + ", " + (value == null ? 0 : value.length)
                + " bytes: " + error + "}";
    }
}
