package io.sluice.api.functions;

import java.io.Serializable;

/** Combines two values of the same key into one. */
@FunctionalInterface
public interface ReduceFunction<T> extends Serializable {
    T reduce(T accumulated, T value) throws Exception;
}
