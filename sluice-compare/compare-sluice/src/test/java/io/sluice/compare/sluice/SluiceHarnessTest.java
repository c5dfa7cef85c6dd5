package io.sluice.compare.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** What the harness says of a failed scenario, which the smoke test's failure message shows. */
class SluiceHarnessTest {
    @Test
    void aFailureIsDescribedWithEveryCauseAndTheHarnessFrameThatThrewIt() {
        Exception error = new IllegalStateException("Job j1 was not RUNNING within 60 s",
                new UncheckedIOException("storage unreachable", new ConnectException("Connection refused")));

        String text = SluiceHarness.describe(error);

        assertThat(text).isEqualTo("java.lang.IllegalStateException: Job j1 was not RUNNING within 60 s"
                + "; caused by java.io.UncheckedIOException: storage unreachable"
                + "; caused by java.net.ConnectException: Connection refused"
                + " (at " + error.getStackTrace()[0] + ")");
        assertThat(text).contains("SluiceHarnessTest.aFailureIsDescribed");
    }

    @Test
    void aFailureThrownOutsideTheHarnessHasNoFrame() {
        TimeoutException error = new TimeoutException("no answer");
        error.setStackTrace(new StackTraceElement[] {
                new StackTraceElement("java.util.concurrent.CompletableFuture", "get", "CompletableFuture.java", 1)});

        assertThat(SluiceHarness.describe(error)).isEqualTo("java.util.concurrent.TimeoutException: no answer");
    }
}
