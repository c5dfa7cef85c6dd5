package io.sluice.connector.kafka;

/** A record the Kafka source could not deserialize, under the fail policy: names topic, partition and offset. */
public final class KafkaRecordDeserializationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public KafkaRecordDeserializationException(String message, Throwable cause) {
        super(message);
        if (cause != null) {
            // Suppressed, not the cause: a job's status shows the root cause, and it must be this message.
            addSuppressed(cause);
        }
    }
}
