package io.sluice.api.functions;

import java.io.Serializable;

/**
 * Extracts the key of a record. Keys must have a stable {@link Object#hashCode()} across JVMs
 * (boxed primitives, strings, tuples and records of these do), since it decides which subtask
 * owns the key's state.
 */
@FunctionalInterface
public interface KeySelector<T, K> extends Serializable {
    K getKey(T value) throws Exception;
}
