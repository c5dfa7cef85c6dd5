package io.sluice.api.state;

/** One value per key. Reads return {@code null} when the current key has no value. */
public interface ValueState<T> {
    T value();

    void update(T value);

    void clear();
}
