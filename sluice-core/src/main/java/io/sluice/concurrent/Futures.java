package io.sluice.concurrent;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Helpers for {@link java.util.concurrent.CompletableFuture}s. Stateless; any thread. */
public final class Futures {
    private Futures() {}

    /**
     * What {@code failure} of a future says: {@code failure} without its {@link CompletionException}
     * and {@link ExecutionException} layers (a future's {@code whenComplete} sees its cause wrapped
     * in a {@code CompletionException} whenever it failed in a stage before; {@code get()} wraps it in
     * an {@code ExecutionException}). A wrapper without a cause is returned as it is; {@code null}
     * stays {@code null}. Only these wrappers are removed: the causes of other exceptions say what
     * went wrong and stay.
     */
    public static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
