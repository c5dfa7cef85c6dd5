package io.sluice.protocol;

/**
 * What a job manager runner reports while it recovers a job after gaining leadership.
 *
 * @param phase          what recovery is doing, e.g. "waiting for leadership", "reading checkpoint pointers"
 * @param attempt        current attempt (1-based), 0 before the first
 * @param pointersFound  retained checkpoint pointers found, -1 until listed
 * @param metadataLoaded checkpoint metadata files loaded so far
 * @param elapsedMillis  time spent recovering in this leadership session
 * @param lastError      the last storage error, or {@code null}
 * @param nextRetryMillis delay before the next attempt when waiting after an error, else 0
 * @param events         notable recovery events, such as a fallback to an older checkpoint
 */
public record RecoveryStatus(String phase, int attempt, int pointersFound, int metadataLoaded, long elapsedMillis,
                             String lastError, long nextRetryMillis, java.util.List<String> events) implements java.io.Serializable {
    public RecoveryStatus {
        events = java.util.List.copyOf(events);
    }
}
