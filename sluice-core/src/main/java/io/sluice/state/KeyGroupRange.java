package io.sluice.state;

import java.io.Serializable;

/**
 * An inclusive range of key groups, the unit in which keyed state is assigned to subtasks and
 * would move on a rescale. {@code [start, end]}; empty when {@code end < start}.
 */
public record KeyGroupRange(int start, int end) implements Serializable {
    public static KeyGroupRange of(int start, int end) {
        return new KeyGroupRange(start, end);
    }

    public boolean contains(int keyGroup) {
        return keyGroup >= start && keyGroup <= end;
    }

    public int size() {
        return Math.max(0, end - start + 1);
    }

    @Override
    public String toString() {
        return "[" + start + ", " + end + "]";
    }
}
