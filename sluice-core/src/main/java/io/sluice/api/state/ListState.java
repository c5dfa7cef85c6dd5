package io.sluice.api.state;

import java.util.List;

/** A list of values per key. */
public interface ListState<T> {
    /** The current key's values, in insertion order; empty (never {@code null}) if there are none. */
    Iterable<T> get();

    void add(T value);

    void update(List<T> values);

    void clear();
}
