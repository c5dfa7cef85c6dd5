package io.sluice.restart;

import java.time.Duration;

/** Never restarts. Main-thread confined like every {@link RestartStrategy}. */
public final class NoRestartStrategy implements RestartStrategy {
    private int failures;

    @Override
    public void notifyFailure(Throwable cause) {
        failures++;
    }

    @Override
    public boolean canRestart() {
        return false;
    }

    @Override
    public Duration backoff() {
        throw new IllegalStateException("No restart strategy: the job is never restarted, so there is no backoff;"
                + " check canRestart() first");
    }

    @Override
    public String describe() {
        return failures == 0 ? "no restart" : "no restart: failed after " + failures + " failure(s)";
    }
}
