package io.sluice.taskexecutor;

/** Rethrows checked exceptions from user code through {@code Collector.collect}, unchanged. */
final class Sneaky {
    private Sneaky() {}

    @SuppressWarnings("unchecked")
    static <E extends Throwable> RuntimeException rethrow(Throwable t) throws E {
        throw (E) t;
    }
}
