package io.sluice.network;

/** Receives the records of an input, on the task thread. */
@FunctionalInterface
public interface RecordHandler<T> {
    void accept(T record) throws Exception;
}
