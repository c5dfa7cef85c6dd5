package io.sluice.cli.client;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * How the CLI opens connections to a cluster: each may take {@code timeout} (for {@code https://} the
 * TLS handshake included), one that timed out is tried again until {@code attempts} were made, and
 * every retry is told to {@code notices} (the command's error stream), so a slow cluster shows as slow
 * rather than as gone.
 *
 * @param timeout {@code --connect-timeout}: how long one connection attempt may take, positive
 * @param attempts how many attempts are made in all, at least 1
 * @param notices where a retry is told, one line each
 */
record Connecting(Duration timeout, int attempts, Consumer<String> notices) {
    /** The attempts every client command makes: three, so a slow handshake is survived twice. */
    static final int ATTEMPTS = 3;

    Connecting {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(notices, "notices");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("The connect timeout must be positive, not " + timeout);
        }
        if (attempts < 1) {
            throw new IllegalArgumentException("At least one connection attempt, not " + attempts);
        }
    }
}
