package io.sluice.jar;

/**
 * A task executor could not fetch or load the jar of a job it was to run a task of (the HA job jar
 * store unreachable, the jar missing, or its digest not the one recorded at submission). Fails that
 * deployment only; the job restarts by its restart strategy and other jobs are untouched.
 */
public final class JobJarUnavailableException extends RuntimeException {
    public JobJarUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
