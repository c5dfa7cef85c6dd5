package io.sluice.api.errors;

/** A key selector returned {@code null}: keys must not be null, so the job's key selector must be fixed. */
public class NullKeyException extends NullPointerException implements UnrecoverableJobException {
    public NullKeyException(String message) {
        super(message);
    }
}
