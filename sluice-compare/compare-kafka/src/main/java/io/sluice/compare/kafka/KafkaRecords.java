package io.sluice.compare.kafka;

import java.nio.ByteBuffer;

/**
 * The record layout of the Kafka scenario, the same for every system. Input value (16 bytes): the
 * sequence number {@code v} and the producer's {@link System#nanoTime()} just before {@code send} (0 for
 * the backlog, whose records are not timed). The job keys by {@code v % keys}, counts per key and writes
 * an output value (24 bytes): key, the key's new count, and the input's send time, copied.
 *
 * <p>Stateless; any thread.
 */
public final class KafkaRecords {
    public static final int INPUT_BYTES = 16;
    public static final int OUTPUT_BYTES = 24;

    private KafkaRecords() {}

    public static byte[] input(long sequence, long sendNanos) {
        return ByteBuffer.allocate(INPUT_BYTES).putLong(sequence).putLong(sendNanos).array();
    }

    /** The sequence number of an input value. */
    public static long sequence(byte[] input) {
        return ByteBuffer.wrap(input).getLong(0);
    }

    /** The key of an input value: its sequence number modulo {@code keys}. */
    public static long key(byte[] input, int keys) {
        return sequence(input) % keys;
    }

    /** The output value for {@code input}, whose key's count is now {@code count}. */
    public static byte[] output(byte[] input, int keys, long count) {
        ByteBuffer in = ByteBuffer.wrap(input);
        return ByteBuffer.allocate(OUTPUT_BYTES).putLong(in.getLong(0) % keys).putLong(count).putLong(in.getLong(8))
                .array();
    }

    public static long outputKey(byte[] output) {
        return ByteBuffer.wrap(output).getLong(0);
    }

    public static long outputCount(byte[] output) {
        return ByteBuffer.wrap(output).getLong(8);
    }

    public static long outputSendNanos(byte[] output) {
        return ByteBuffer.wrap(output).getLong(16);
    }
}
