package io.sluice.protocol;

/** A job was rejected at submission; the message says why and what to change. */
public class JobSubmissionException extends RuntimeException {
    public JobSubmissionException(String message) {
        super(message);
    }

    public JobSubmissionException(String message, Throwable cause) {
        super(message, cause);
    }
}
