package io.sluice.connector.kafka;

/**
 * Closing Kafka clients on a thread that may be interrupted. A task that is cancelled is interrupted and
 * closes its source reader and sink; Kafka's consumer and producer, closed on an interrupted thread,
 * give up at their first wait: the consumer logs an error with a stack trace ("Failed to close fetcher")
 * and throws {@code InterruptException} out of {@code close}, the producer throws it too.
 *
 * <p>Clearing the interrupt flag around {@code close} is not enough: the task may leave its loop on its
 * own (its input ended or was released by the cancel) and be closing already when the cancel's interrupt
 * arrives (seen in the Kafka benchmark's log after that first fix). So the client is closed on a thread of
 * its own, which no cancel interrupts, while the calling thread waits for it without giving up on an
 * interrupt; the interrupt is kept and set again on the calling thread afterwards, so the task still sees
 * it. Every close passed here is bounded by its own timeout.
 *
 * <p>Threading: any thread.
 */
final class KafkaClients {
    private KafkaClients() {}

    /**
     * Runs {@code close} on a new thread (with the caller's context class loader) and waits for it; an
     * interrupt of the calling thread meanwhile is kept and set again once {@code close} returned. A
     * {@link RuntimeException} or {@link Error} of {@code close} is rethrown here.
     */
    static void closeUninterrupted(Runnable close) {
        Throwable[] failure = new Throwable[1];
        Thread closer = new Thread(() -> {
            try {
                close.run();
            } catch (Throwable t) {
                failure[0] = t;
            }
        }, "sluice-kafka-close (" + Thread.currentThread().getName() + ")");
        closer.setDaemon(true);
        closer.setContextClassLoader(Thread.currentThread().getContextClassLoader());
        boolean interrupted = Thread.interrupted();
        closer.start();
        while (true) {
            try {
                closer.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure[0] instanceof RuntimeException r) {
            throw r;
        }
        if (failure[0] instanceof Error err) {
            throw err;
        }
        if (failure[0] != null) {
            throw new IllegalStateException(failure[0]);
        }
    }
}
