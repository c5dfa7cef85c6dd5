package io.sluice.state;

import java.util.ArrayList;
import java.util.Collection;

/**
 * The list of one key in a {@link HeapListState}, stamped with the snapshot epoch in which the
 * backend owns it alone; copy-on-write like {@link StateMap}.
 *
 * <p>Threading: as {@link StateMap}.
 */
final class StateList<T> extends ArrayList<T> implements EpochStamped {
    private static final long serialVersionUID = 1L;

    /** The snapshot epoch in which the live table owns this list alone. Task thread only. */
    int epoch;

    StateList(int initialCapacity, int epoch) {
        super(initialCapacity);
        this.epoch = epoch;
    }

    /** A copy of {@code other} (sharing its elements), owned in {@code epoch}. */
    StateList(Collection<? extends T> other, int epoch) {
        super(other);
        this.epoch = epoch;
    }

    @Override
    public int epoch() {
        return epoch;
    }

    @Override
    public void stamp(int epoch) {
        this.epoch = epoch;
    }
}
