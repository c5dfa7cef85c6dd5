package io.sluice.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The stop of a cluster process command: the wait ends only on a stop request, the stop action runs
 * once between the two messages, and a later shutdown hook run does nothing again (and the other way
 * round).
 */
class UntilStoppedTest {
    @Test
    void aStopRequestEndsTheWaitAndRunsTheStopActionOnceBetweenTheMessages() throws Exception {
        StringWriter text = new StringWriter();
        PrintWriter out = new PrintWriter(text);
        AtomicInteger stops = new AtomicInteger();
        UntilStopped untilStopped = new UntilStopped(() -> {
            out.println("stop action");
            stops.incrementAndGet();
        });

        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
            try {
                untilStopped.awaitStopSignalThenStop(out, "stopping", "stopped");
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(waiting).as("waits until a stop is requested").isNotDone();
        assertThat(stops).hasValue(0);

        untilStopped.requestStop();
        waiting.get(10, TimeUnit.SECONDS);
        assertThat(text.toString()).isEqualTo(String.format("stopping%nstop action%nstopped%n"));
        untilStopped.stopOnce(); // the shutdown hook, as the JVM exits
        assertThat(stops).hasValue(1);
    }

    @Test
    void afterTheShutdownHookStoppedTheStopRequestDoesNotStopAgain() throws Exception {
        AtomicInteger stops = new AtomicInteger();
        UntilStopped untilStopped = new UntilStopped(stops::incrementAndGet);
        untilStopped.stopOnce(); // the shutdown hook, e.g. after SIGHUP
        untilStopped.requestStop();
        StringWriter text = new StringWriter();
        untilStopped.awaitStopSignalThenStop(new PrintWriter(text), "stopping", "stopped");
        assertThat(stops).hasValue(1);
        assertThat(text.toString()).isEqualTo(String.format("stopping%nstopped%n"));
    }
}
