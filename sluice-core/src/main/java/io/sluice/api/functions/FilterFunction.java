package io.sluice.api.functions;

import java.io.Serializable;

/** Keeps the records for which it returns {@code true}. */
@FunctionalInterface
public interface FilterFunction<T> extends Serializable {
    boolean filter(T value) throws Exception;
}
