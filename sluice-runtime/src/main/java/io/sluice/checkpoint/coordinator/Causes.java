package io.sluice.checkpoint.coordinator;

import io.sluice.concurrent.Futures;

/** What a failed future's cause says, for checkpoint failure messages. Stateless; any thread. */
final class Causes {
    private Causes() {
    }

    /** The message of what {@code t} wraps (its class name if it has none). */
    static String rootMessage(Throwable t) {
        Throwable c = Futures.unwrap(t);
        return c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
    }
}
