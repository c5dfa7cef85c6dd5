package io.sluice.api.functions;

/** Receives the records a function emits. Called only from the task thread that runs the function. */
@FunctionalInterface
public interface Collector<T> {
    void collect(T record);
}
