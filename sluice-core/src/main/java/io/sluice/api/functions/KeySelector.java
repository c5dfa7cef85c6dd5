package io.sluice.api.functions;

import java.io.Serializable;

/**
 * Extracts the key of a record. Keys must be immutable and have a {@link Object#hashCode()} that
 * is the same in every JVM (boxed primitives, strings, {@link java.util.UUID}, tuples and records
 * of these do; enums, whose {@code hashCode} is not, are hashed by name), since it decides which
 * subtask owns the key's state. Checkpoints write keys with the default (dynamic) serializer,
 * which also handles enums, UUIDs and records, or with the one given to
 * {@code keyBy(selector, serializer)}.
 */
@FunctionalInterface
public interface KeySelector<T, K> extends Serializable {
    K getKey(T value) throws Exception;
}
