package io.sluice.api.sink;

import java.io.IOException;

/**
 * A {@link SinkWriter#preCommit} could not reach the sink's system (its storage or broker refused,
 * timed out or failed), and the writer kept everything it had: it can pre-commit the same records,
 * and more, at the next barrier. The subtask then declines that one checkpoint as a storage failure
 * (not counted towards {@code checkpoints.tolerable-failures}) and keeps running: no restart, no
 * replay; the job's status shows the failing checkpoints and their cause until the system answers
 * again. Any other exception from a pre-commit fails the task.
 *
 * <p>Throw it only when a retry at the next barrier is safe: nothing the failed attempt did may be
 * committed twice or lost when the pre-commit is repeated.
 */
public class SinkUnavailableException extends IOException {
    private static final long serialVersionUID = 1L;

    public SinkUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
