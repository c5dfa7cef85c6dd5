package io.sluice.checkpoint;

/**
 * A subtask could not restore its keyed state from a checkpoint because the state is unusable: a
 * state file is corrupt ({@link CorruptStateFileException}) or its snapshot cannot be decoded.
 * Names the checkpoint, the subtask and the file. The job master reacts by falling back to the
 * previous retained checkpoint instead of restoring the same one again; storage that cannot be
 * reached is not this exception (that is retried as any failure).
 */
public class StateRestoreException extends RuntimeException {
    private final long checkpointId;
    private final int vertexId;
    private final int subtaskIndex;
    private final String stateFile;

    /**
     * @param task      the task's name, for the message
     * @param stateFile the unusable state file, or {@code null} for state inline in the metadata
     */
    public StateRestoreException(String task, long checkpointId, int vertexId, int subtaskIndex, String stateFile,
                                 Throwable cause) {
        super("Task " + task + " (vertex " + vertexId + ", subtask " + subtaskIndex + ") cannot restore its keyed state"
                + " from checkpoint " + checkpointId + ": " + (stateFile == null ? "its inline state" : "state file "
                + stateFile) + " is unusable (" + cause.getMessage() + ")", cause);
        this.checkpointId = checkpointId;
        this.vertexId = vertexId;
        this.subtaskIndex = subtaskIndex;
        this.stateFile = stateFile;
    }

    public long checkpointId() {
        return checkpointId;
    }

    public int vertexId() {
        return vertexId;
    }

    public int subtaskIndex() {
        return subtaskIndex;
    }

    /** The state file, or {@code null} if the state was inline in the metadata. */
    public String stateFile() {
        return stateFile;
    }

    /** The first {@code StateRestoreException} in {@code t}'s cause chain, or {@code null}. */
    public static StateRestoreException find(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof StateRestoreException e) {
                return e;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return null;
    }
}
