package io.sluice.rpc;

/** A storage or HA call was made from a component main thread while the guard was on. */
public final class MainThreadViolationException extends IllegalStateException {
    public MainThreadViolationException(String message) {
        super(message);
    }
}
