package io.sluice.api.errors;

/** A job cannot run as written: the message names the problem and how to fix it. */
public class InvalidJobException extends RuntimeException {
    public InvalidJobException(String message) {
        super(message);
    }

    public InvalidJobException(String message, Throwable cause) {
        super(message, cause);
    }
}
