package io.sluice.connector.kafka;

/**
 * Closing Kafka clients on a thread that may be interrupted. A task that is cancelled is interrupted and
 * then closes its source reader and sink; Kafka's consumer and producer, closed on an interrupted thread,
 * give up at their first wait: the consumer logs an error with a stack trace ("Failed to close fetcher")
 * and throws {@code InterruptException} out of {@code close} at every cancel, the producer throws it too.
 * Closing with the interrupt flag cleared, and setting it again afterwards, lets them close within their
 * close timeout; the task still sees it was interrupted.
 *
 * <p>Threading: any thread.
 */
final class KafkaClients {
    private KafkaClients() {}

    /** Runs {@code close} with this thread's interrupt flag cleared, and restores the flag afterwards. */
    static void closeUninterrupted(Runnable close) {
        boolean interrupted = Thread.interrupted();
        try {
            close.run();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
