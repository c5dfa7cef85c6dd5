package io.sluice.checkpoint;

/**
 * A subtask's code failed while it restored its keyed state from a checkpoint, for a reason that is
 * not an unusable snapshot ({@link StateRestoreException}) nor a storage error: a key that the
 * restoring code puts in another key group than the one it was written in, a serializer that throws
 * on the state it wrote. The same state read by the same code fails the same way every time, so the
 * job master classifies repeated failures of this kind as a restore that can never succeed (see
 * {@code io.sluice.restart.CrashLoopDetector}); the checkpoint itself is kept. Names the task and the
 * checkpoint; the cause is the error as thrown.
 */
public class KeyedStateRestoreException extends RuntimeException {
    private final long checkpointId;

    public KeyedStateRestoreException(String task, long checkpointId, RuntimeException cause) {
        super("Task " + task + " failed to restore its keyed state from checkpoint " + checkpointId + ": "
                + cause.getMessage(), cause);
        this.checkpointId = checkpointId;
    }

    public long checkpointId() {
        return checkpointId;
    }

    /** The first {@code KeyedStateRestoreException} in {@code t}'s cause chain, or {@code null}. */
    public static KeyedStateRestoreException find(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof KeyedStateRestoreException e) {
                return e;
            }
        }
        return null;
    }
}
