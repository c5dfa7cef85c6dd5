package io.sluice.taskexecutor;

/** A task was cancelled; the reason its channels were released. */
public final class TaskCancelledException extends RuntimeException {
    public TaskCancelledException(String message) {
        super(message);
    }
}
