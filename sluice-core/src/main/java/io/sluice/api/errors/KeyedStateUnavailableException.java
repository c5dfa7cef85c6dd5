package io.sluice.api.errors;

/** An operator asked for keyed state but is not applied on a keyed stream: add {@code keyBy} before it. */
public class KeyedStateUnavailableException extends IllegalStateException implements UnrecoverableJobException {
    public KeyedStateUnavailableException(String message) {
        super(message);
    }
}
