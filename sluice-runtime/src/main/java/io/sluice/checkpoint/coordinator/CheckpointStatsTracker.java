package io.sluice.checkpoint.coordinator;

import io.sluice.checkpoint.CheckpointMetricsListener;
import io.sluice.checkpoint.CheckpointStats;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStats;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.graph.JobConfig;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.OptionalLong;

/**
 * The checkpoint counters of a job's status ({@link CheckpointStats}): completions with duration and
 * size of the recent ones, joined with the failure accounting of {@link CheckpointFailures} and the
 * store's latest checkpoint. Checkpoints count as failing from their first failure after the last
 * completion, or while one has been in flight for more than {@value #STUCK_INTERVALS} intervals (at
 * least 10 s), as on hung storage before the timeout.
 *
 * <p>Threading: the job master's main thread only; every method checks it.
 */
final class CheckpointStatsTracker {
    /** A pending checkpoint older than this many intervals (and at least {@link #MIN_STUCK}) shows as failing. */
    private static final int STUCK_INTERVALS = 10;
    private static final Duration MIN_STUCK = Duration.ofSeconds(10);

    private final JobConfig config;
    private final CompletedCheckpointStore store;
    private final MainThreadExecutor mainThread;
    private final Clock clock;
    private final CheckpointFailures failures;

    private long completed;
    private long latestDurationMillis;
    /** The latest completed checkpoints, oldest first, at most {@link CheckpointStats#RECENT_LIMIT}. */
    private final ArrayDeque<CompletedCheckpointStats> recent = new ArrayDeque<>();

    CheckpointStatsTracker(JobConfig config, CompletedCheckpointStore store, MainThreadExecutor mainThread, Clock clock,
                           CheckpointFailures failures) {
        this.config = config;
        this.store = store;
        this.mainThread = mainThread;
        this.clock = clock;
        this.failures = failures;
    }

    /** {@code p} completed as {@code checkpoint}: counted, and told to {@code listener}. Returns its duration in ms. */
    long completed(PendingCheckpoint p, CompletedCheckpoint checkpoint, CheckpointMetricsListener listener) {
        mainThread.assertRunningInMainThread();
        completed++;
        long durationNanos = clock.nanoTime() - p.triggerNanos;
        latestDurationMillis = durationNanos / 1_000_000L;
        boolean inline = checkpoint.taskStates().stream().allMatch(h -> h.stateFile() == null);
        recent.addLast(new CompletedCheckpointStats(p.checkpointId, p.triggerTimestampMillis, durationNanos,
                checkpoint.totalStateSize(), inline));
        listener.checkpointCompleted(recent.peekLast());
        if (recent.size() > CheckpointStats.RECENT_LIMIT) {
            recent.removeFirst();
        }
        return latestDurationMillis;
    }

    /**
     * The counters now.
     *
     * @param pending            the pending checkpoint, or {@code null}
     * @param idRequestSinceNanos when the id request in flight was made, if one is
     * @param restoredId         the checkpoint the current deployment restored from, or -1
     */
    CheckpointStats snapshot(PendingCheckpoint pending, OptionalLong idRequestSinceNanos, long restoredId) {
        mainThread.assertRunningInMainThread();
        long latestId = store.latest().map(CompletedCheckpoint::checkpointId).orElse(-1L);
        long latestAt = store.latest().map(CompletedCheckpoint::completionTimestampMillis).orElse(0L);
        long since = failures.failingSinceMillis();
        String cause = since >= 0 ? failures.lastFailure() : null;
        if (since < 0) {
            Stuck stuck = stuck(pending, idRequestSinceNanos);
            if (stuck != null) {
                since = stuck.sinceMillis();
                cause = stuck.cause();
            }
        }
        return new CheckpointStats(completed, failures.failedCount(), failures.consecutiveFailures(), latestId,
                latestAt, latestDurationMillis, failures.lastFailure(), List.copyOf(recent), since, cause, restoredId);
    }

    private record Stuck(long sinceMillis, String cause) {
    }

    /** A checkpoint (or its id request) in flight for longer than the stuck threshold, or {@code null}. */
    private Stuck stuck(PendingCheckpoint p, OptionalLong idRequestSinceNanos) {
        long stuckMillis = Math.max(MIN_STUCK.toMillis(), config.checkpointInterval().toMillis() * STUCK_INTERVALS);
        if (p != null) {
            long ageMillis = (clock.nanoTime() - p.triggerNanos) / 1_000_000L;
            return ageMillis <= stuckMillis ? null : new Stuck(p.triggerTimestampMillis, "Checkpoint " + p.checkpointId
                    + " has been pending for " + ageMillis + " ms (" + p.waitingFor() + "); it is aborted after "
                    + config.checkpointTimeout());
        }
        if (idRequestSinceNanos.isPresent()) {
            long ageMillis = (clock.nanoTime() - idRequestSinceNanos.getAsLong()) / 1_000_000L;
            return ageMillis <= stuckMillis ? null : new Stuck(clock.currentTimeMillis() - ageMillis,
                    "The checkpoint id counter (HA services) has not answered for " + ageMillis
                            + " ms; the checkpoint is aborted after " + config.checkpointTimeout());
        }
        return null;
    }
}
