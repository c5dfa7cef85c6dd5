package io.sluice.jobmaster;

import io.sluice.ha.RecoveryListener;
import io.sluice.protocol.RecoveryStatus;
import io.sluice.util.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Progress of one leadership session's recovery, written by the recovering I/O thread (through
 * {@link RecoveryListener}) and by the runner's main thread, read by status queries. Thread-safe:
 * every method takes this object's lock briefly; nothing blocks under it.
 */
final class RecoveryProgress implements RecoveryListener {
    private final Clock clock;
    private final long startNanos;
    private String phase = "waiting for leadership";
    private int attempt;
    private int pointersFound = -1;
    private int metadataLoaded;
    private String lastError;
    private long nextRetryAtNanos;
    private final List<String> events = new ArrayList<>();

    RecoveryProgress(Clock clock) {
        this.clock = clock;
        this.startNanos = clock.nanoTime();
    }

    @Override
    public synchronized void phase(String description) {
        this.phase = description;
    }

    @Override
    public synchronized void pointersFound(int count) {
        this.pointersFound = count;
    }

    @Override
    public synchronized void metadataLoaded(long checkpointId) {
        this.metadataLoaded++;
    }

    @Override
    public synchronized void event(String message) {
        if (events.size() < 100) {
            events.add(message);
        }
    }

    synchronized void startAttempt(int attempt) {
        this.attempt = attempt;
        this.nextRetryAtNanos = 0;
        this.pointersFound = -1;
        this.metadataLoaded = 0;
    }

    synchronized void failedAttempt(String error, long retryDelayNanos) {
        failedAttempt(error, retryDelayNanos, "waiting to retry after a storage error");
    }

    /** An attempt failed with {@code error}; the next one starts in {@code retryDelayNanos}; meanwhile {@code waitingPhase}. */
    synchronized void failedAttempt(String error, long retryDelayNanos, String waitingPhase) {
        this.lastError = error;
        this.nextRetryAtNanos = clock.nanoTime() + retryDelayNanos;
        this.phase = waitingPhase;
    }

    synchronized List<String> events() {
        return List.copyOf(events);
    }

    synchronized RecoveryStatus snapshot() {
        long now = clock.nanoTime();
        long retry = nextRetryAtNanos == 0 ? 0 : Math.max(0, (nextRetryAtNanos - now) / 1_000_000L);
        return new RecoveryStatus(phase, attempt, pointersFound, metadataLoaded, (now - startNanos) / 1_000_000L,
                lastError, retry, events);
    }
}
