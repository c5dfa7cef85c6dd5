package io.sluice.checkpoint.coordinator;

import io.sluice.checkpoint.CheckpointException;
import io.sluice.checkpoint.Savepoint;
import java.util.concurrent.CompletableFuture;

/**
 * A requested savepoint: where it goes and who waits for it. Queued in the {@link CheckpointCoordinator}
 * until no checkpoint is in flight, then carried by its {@link PendingCheckpoint}. Its future completes once,
 * on the job master's main thread: with the {@link Savepoint} once its metadata is written, or with a
 * {@link CheckpointException} saying why not.
 */
final class PendingSavepoint {
    /** The directory the savepoint's own directory is created in (a location or a plain path). */
    final String targetLocation;
    /** When it was requested: it must start within the checkpoint timeout. */
    final long requestedNanos;
    /** Stop-with-savepoint: the sources emit nothing after its barrier. */
    final boolean stop;
    final CompletableFuture<Savepoint> future = new CompletableFuture<>();
    /** Whether its checkpoint id was asked for and has not come back yet. Main thread. */
    boolean idRequested;

    PendingSavepoint(String targetLocation, long requestedNanos, boolean stop) {
        this.targetLocation = targetLocation;
        this.requestedNanos = requestedNanos;
        this.stop = stop;
    }

    /** Fails the savepoint with {@code reason} (a sentence fragment: "the job is failing over"). */
    void fail(String jobDescription, String reason) {
        future.completeExceptionally(new CheckpointException("Savepoint of " + jobDescription + " into "
                + targetLocation + " failed: " + reason));
    }
}
