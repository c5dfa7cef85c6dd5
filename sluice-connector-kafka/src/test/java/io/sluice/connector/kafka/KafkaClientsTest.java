package io.sluice.connector.kafka;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * {@link KafkaClients#closeUninterrupted}: a close is never cut short by an interrupt of the closing
 * thread, neither one set before nor one that arrives while the client closes (the cancel of a task that
 * was already closing, as the Kafka benchmark's log showed), and the interrupt is kept for the caller.
 */
class KafkaClientsTest {

    @Test
    void anInterruptThatArrivesWhileClosingDoesNotReachTheCloseAndIsKept() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            CountDownLatch closing = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicBoolean closeInterrupted = new AtomicBoolean();
            AtomicBoolean callerInterruptedAfter = new AtomicBoolean();
            Thread task = new Thread(() -> {
                KafkaClients.closeUninterrupted(() -> {
                    closing.countDown();
                    try {
                        release.await(); // a wait inside the client's close, as the consumer's fetch-session close
                    } catch (InterruptedException e) {
                        closeInterrupted.set(true);
                    }
                });
                callerInterruptedAfter.set(Thread.currentThread().isInterrupted());
            }, "task");
            task.start();
            assertThat(closing.await(10, TimeUnit.SECONDS)).isTrue();
            task.interrupt(); // the cancel's interrupt, while the close is under way
            release.countDown();
            task.join();

            assertThat(closeInterrupted).as("the close was interrupted").isFalse();
            assertThat(callerInterruptedAfter).as("the caller's interrupt is kept").isTrue();
        });
    }

    @Test
    void anInterruptSetBeforeTheCloseDoesNotReachItAndIsKept() {
        AtomicReference<Boolean> interruptedInClose = new AtomicReference<>();
        Thread.currentThread().interrupt();
        try {
            KafkaClients.closeUninterrupted(() -> interruptedInClose.set(Thread.currentThread().isInterrupted()));
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(interruptedInClose.get()).isFalse();
    }

    @Test
    void aFailureOfTheCloseReachesTheCaller() {
        assertThatThrownBy(() -> KafkaClients.closeUninterrupted(() -> {
            throw new IllegalStateException("close failed");
        })).isInstanceOf(IllegalStateException.class).hasMessage("close failed");
    }
}
