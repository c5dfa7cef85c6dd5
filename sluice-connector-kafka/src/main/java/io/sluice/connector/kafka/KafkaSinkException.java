package io.sluice.connector.kafka;

/** The Kafka sink cannot go on: a failed write, a bad setting found at start, a prefix used by another job. */
public final class KafkaSinkException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public KafkaSinkException(String message) {
        super(message);
    }

    public KafkaSinkException(String message, Throwable cause) {
        super(message, cause);
    }
}
