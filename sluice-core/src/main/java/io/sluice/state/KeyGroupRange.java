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

    /** The key groups in both ranges; empty ({@link #size()} 0) when they do not overlap. */
    public KeyGroupRange intersection(KeyGroupRange other) {
        return new KeyGroupRange(Math.max(start, other.start), Math.min(end, other.end));
    }

    public int size() {
        return Math.max(0, end - start + 1);
    }

    @Override
    public String toString() {
        return "[" + start + ", " + end + "]";
    }
}
