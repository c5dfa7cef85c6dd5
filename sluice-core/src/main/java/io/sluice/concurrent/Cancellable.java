package io.sluice.concurrent;

/** Something scheduled that can be called off: a timer, a retry. Cancelling twice, or after it ran, does nothing. */
@FunctionalInterface
public interface Cancellable {
    void cancel();
}
