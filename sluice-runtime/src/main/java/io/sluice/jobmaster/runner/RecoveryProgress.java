package io.sluice.jobmaster.runner;

import io.sluice.ha.RecoveryListener;
import io.sluice.protocol.RecoveryStatus;
import io.sluice.util.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * Progress of one leadership session's recovery, written by the recovering I/O thread (through
 * {@link RecoveryListener}) and by the runner's main thread, read by status queries. Thread-safe:
 * every method takes this object's lock briefly; nothing blocks under it.
 */
public final class RecoveryProgress implements RecoveryListener {
    private final Clock clock;
    private final long startNanos;
    private String phase = "waiting for leadership";
    private int attempt;
    private int pointersFound = -1;
    private int metadataLoaded;
    private String lastError;
    private long nextRetryAtNanos;
    private final List<String> events = new ArrayList<>();
    /** While the attempt waits for a recovery read: how many jobs are ahead (-1 once it runs); else null. */
    private IntSupplier queuedAhead;

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
        this.queuedAhead = null;
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

    /**
     * The current attempt waits for its turn to read storage ({@code RecoveryReads}); until {@code
     * ahead} says -1 the phase shows "queued for recovery: N jobs ahead".
     */
    synchronized void queuedBehind(IntSupplier ahead) {
        this.queuedAhead = ahead;
    }

    /** The phase now: the queue position while the attempt waits to read storage, else the last phase set. */
    private String currentPhase() {
        if (queuedAhead != null) {
            int ahead = queuedAhead.getAsInt();
            if (ahead >= 0) {
                return queuedText(ahead);
            }
            queuedAhead = null;
        }
        return phase;
    }

    /** "queued for recovery: 412 jobs ahead". */
    public static String queuedText(int ahead) {
        return "queued for recovery: " + ahead + (ahead == 1 ? " job" : " jobs") + " ahead";
    }

    synchronized List<String> events() {
        return List.copyOf(events);
    }

    synchronized RecoveryStatus snapshot() {
        long now = clock.nanoTime();
        long retry = nextRetryAtNanos == 0 ? 0 : Math.max(0, (nextRetryAtNanos - now) / 1_000_000L);
        return new RecoveryStatus(currentPhase(), attempt, pointersFound, metadataLoaded, (now - startNanos) / 1_000_000L,
                lastError, retry, events);
    }
}
