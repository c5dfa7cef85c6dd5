package io.sluice.connector.kafka;

/** A topic the Kafka source or sink was told to use does not exist. */
public final class UnknownKafkaTopicException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UnknownKafkaTopicException(String message) {
        super(message);
    }
}
