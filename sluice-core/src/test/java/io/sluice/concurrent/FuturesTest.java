package io.sluice.concurrent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class FuturesTest {

    @Test
    void removesEveryCompletionAndExecutionLayer() {
        IOException cause = new IOException("refused");
        assertThat(Futures.unwrap(new CompletionException(new ExecutionException(new CompletionException(cause)))))
                .isSameAs(cause);
        assertThat(Futures.unwrap(cause)).isSameAs(cause);
    }

    @Test
    void keepsTheCausesOfOtherExceptionsAndAWrapperWithoutCause() {
        IllegalStateException described = new IllegalStateException("Could not read checkpoint 3", new IOException("x"));
        assertThat(Futures.unwrap(new CompletionException(described))).isSameAs(described);
        CompletionException empty = new CompletionException("no cause", null);
        assertThat(Futures.unwrap(empty)).isSameAs(empty);
        assertThat(Futures.unwrap(null)).isNull();
    }

    @Test
    void unwrapsWhatAFailedStageHandsToItsDependents() {
        IOException cause = new IOException("refused");
        Throwable seen = CompletableFuture.failedFuture(cause).thenApply(x -> x).handle((v, e) -> e).join();
        assertThat(seen).isInstanceOf(CompletionException.class);
        assertThat(Futures.unwrap(seen)).isSameAs(cause);
    }
}
