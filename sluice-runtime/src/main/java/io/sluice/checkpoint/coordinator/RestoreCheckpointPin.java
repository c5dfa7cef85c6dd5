package io.sluice.checkpoint.coordinator;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.TreeSet;

/**
 * The one exception to checkpoint retention: the checkpoint that the current deployment restores
 * from is not discarded while its tasks may still read its state files, even if a newer checkpoint
 * subsumed it in the meantime. That happens when a checkpoint finishes during a failover: it was
 * fully acknowledged (so the failover did not abort it) but not yet complete when the restart took
 * the latest completed checkpoint from the store.
 *
 * <p>A discard of the pinned checkpoint is postponed, and handed back by {@link #release()} or by
 * the next {@link #pin(long)} of another checkpoint. The pin is held from the deployment until
 * every task of it has reported that its restore is done (or has ended), which is the restore time
 * of one task: a short, bounded delay of one discard, never of a restart.
 *
 * <p>Threading: not thread-safe; confined to the job master's main thread (owned by the
 * {@link CheckpointCoordinator}).
 */
final class RestoreCheckpointPin {
    private static final long NONE = -1;

    private long pinned = NONE;
    /** Subsumed checkpoints whose discard waits for the pin to move or go. */
    private final TreeSet<Long> postponed = new TreeSet<>();

    /**
     * A deployment restores from {@code checkpointId}: it must not be discarded until released.
     * Replaces an earlier pin.
     *
     * @return postponed discards that may run now, ascending (those of an earlier pin)
     */
    List<Long> pin(long checkpointId) {
        if (checkpointId < 0) {
            throw new IllegalArgumentException("Checkpoint ids are >= 0, got " + checkpointId);
        }
        pinned = checkpointId;
        return drainExcept(checkpointId);
    }

    /**
     * The deployment no longer reads the pinned checkpoint (its tasks restored, or all ended).
     *
     * @return postponed discards that may run now, ascending
     */
    List<Long> release() {
        pinned = NONE;
        return drainExcept(NONE);
    }

    /**
     * Whether {@code checkpointId} may be discarded now. If it is pinned, its discard is remembered
     * and returned by a later {@link #release()} or {@link #pin(long)}, and this returns false.
     */
    boolean mayDiscardNow(long checkpointId) {
        if (checkpointId != NONE && checkpointId == pinned) {
            postponed.add(checkpointId);
            return false;
        }
        return true;
    }

    /** The pinned checkpoint, if a deployment is restoring. */
    OptionalLong pinned() {
        return pinned == NONE ? OptionalLong.empty() : OptionalLong.of(pinned);
    }

    /** Checkpoints whose discard is postponed, ascending. */
    List<Long> postponed() {
        return List.copyOf(postponed);
    }

    private List<Long> drainExcept(long keep) {
        List<Long> ready = new ArrayList<>();
        for (Long id : postponed) {
            if (id != keep) {
                ready.add(id);
            }
        }
        postponed.removeAll(ready);
        return ready;
    }
}
