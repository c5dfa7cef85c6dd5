package io.sluice.slots;

/**
 * A task executor left the cluster with tasks of a job on it (no heartbeat for the timeout, it
 * restarted, or it disconnected); the message says which and why, e.g. "task manager tm-1 lost:
 * no heartbeat for 6 s". The job fails over like after a task failure.
 */
public final class TaskExecutorLostException extends Exception {
    private final String taskExecutorId;

    public TaskExecutorLostException(String taskExecutorId, String reason) {
        super(reason);
        this.taskExecutorId = taskExecutorId;
    }

    public String taskExecutorId() {
        return taskExecutorId;
    }
}
