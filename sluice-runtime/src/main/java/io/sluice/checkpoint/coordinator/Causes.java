package io.sluice.checkpoint.coordinator;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What a failed future's cause says, for checkpoint failure messages. Stateless; any thread. */
final class Causes {
    private Causes() {
    }

    /** The message of what {@code t} wraps (its class name if it has none). */
    static String rootMessage(Throwable t) {
        Throwable c = unwrap(t);
        return c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
    }

    /** {@code t} without the {@link CompletionException} / {@link ExecutionException} layers of futures. */
    static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }
}
