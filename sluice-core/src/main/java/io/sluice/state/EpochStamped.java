package io.sluice.state;

/**
 * A per-key container of a list or map state ({@link StateList}, {@link StateMap}), stamped with
 * the snapshot epoch in which the live table owns it alone (see
 * {@link HeapState#shareOrCopyContainers}).
 *
 * <p>Threading: task thread only.
 */
interface EpochStamped {
    /** The snapshot epoch in which the live table owns this container alone. */
    int epoch();

    /** Marks this container as the live table's own in {@code epoch}. */
    void stamp(int epoch);
}
