package io.sluice.jobmaster.runner;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Small helpers the runner's states share for what they log and show. Stateless; any thread. */
final class RunnerMessages {
    private RunnerMessages() {}

    /** "350 ms" or "1.5 s". */
    static String formatDelay(Duration d) {
        return d.toMillis() >= 1000 ? String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0) : d.toMillis() + " ms";
    }

    /** The cause inside the completion wrappers of a future. */
    static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }
}
