package io.sluice.cluster.membership;

import java.io.Serializable;
import java.util.UUID;

/**
 * Where a task executor stands with the job manager, for logs and status pages. Serializable.
 *
 * @param state          what it does now
 * @param leader         the dispatcher leader's contender id it follows, or {@code null} if none is known
 * @param registrationId the current registration, or {@code null} unless {@link State#REGISTERED}
 * @param attempt        the current registration attempt (1-based), 0 when registered or idle
 * @param lastError      why the last attempt failed, or {@code null}
 */
public record ConnectionStatus(State state, String leader, UUID registrationId, int attempt, String lastError)
        implements Serializable {
    public enum State {
        /** No leader is known (or the connector is not started). */
        NO_LEADER,
        /** Trying to register with the leader (with backoff between attempts). */
        REGISTERING,
        /** Registered; heartbeats run. */
        REGISTERED,
        /** Closed. */
        CLOSED
    }
}
