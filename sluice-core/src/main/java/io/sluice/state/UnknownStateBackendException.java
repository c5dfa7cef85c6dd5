package io.sluice.state;

import io.sluice.api.errors.UnrecoverableJobException;

/**
 * The state backend a job or task executor names ({@code state.backend}) is not on the task
 * executor's class path. No restart fixes it, so the job fails at once, naming the backend, the ones
 * that are known and what to put on the class path.
 */
public class UnknownStateBackendException extends IllegalStateException implements UnrecoverableJobException {
    public UnknownStateBackendException(String message) {
        super(message);
    }
}
