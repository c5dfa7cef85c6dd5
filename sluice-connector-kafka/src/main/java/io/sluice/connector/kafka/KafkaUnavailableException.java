package io.sluice.connector.kafka;

/** No broker answered the Kafka source or sink in time (an unreachable bootstrap server, a broker down). */
public final class KafkaUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public KafkaUnavailableException(String message, Throwable cause) {
        super(message);
        if (cause != null) {
            // Suppressed, not the cause: a job's status shows the root cause, and it must be this message.
            addSuppressed(cause);
        }
    }
}
