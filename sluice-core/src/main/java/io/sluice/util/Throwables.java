package io.sluice.util;

/** Helpers for exceptions. Stateless; any thread. */
public final class Throwables {
    private Throwables() {}

    /**
     * The innermost cause of {@code t} ({@code t} itself when it has none): what a message about
     * an I/O failure names ("Connection refused"), below the wrappers that added context. To strip
     * only a future's wrappers and keep the context, use {@code io.sluice.concurrent.Futures#unwrap}.
     */
    public static Throwable rootCause(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c;
    }
}
