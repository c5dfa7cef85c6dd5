package io.sluice.state;

import java.util.HashMap;
import java.util.Map;

/**
 * The map of one key in a {@link HeapMapState}, stamped with the snapshot epoch in which the
 * backend owns it alone. While {@link #epoch} equals the backend's current epoch no snapshot refers
 * to this map and the task may change it in place; otherwise a snapshot shares it (see
 * {@link HeapState#shareOrCopyContainers}), and the task replaces it with a copy before its first change
 * (copy-on-write).
 *
 * <p>Threading: the task thread reads and writes it; a snapshot's writer thread may read a shared
 * one at the same time, which is safe because nobody changes a shared map.
 */
final class StateMap<K, V> extends HashMap<K, V> implements EpochStamped {
    private static final long serialVersionUID = 1L;

    /** The snapshot epoch in which the live table owns this map alone. Task thread only. */
    int epoch;

    /** An empty map for a key's first entry; small, as most keys have a few entries (a session, a timer). */
    StateMap(int epoch) {
        super(4);
        this.epoch = epoch;
    }

    /** A copy of {@code other} (sharing its keys and values), owned in {@code epoch}. */
    StateMap(Map<? extends K, ? extends V> other, int epoch) {
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
