package io.sluice.network;

/**
 * Takes back the array of a data {@link Buffer} once its reader is done with it, so that the
 * producer can fill it again. Called by the consumer's thread, so implementations are thread-safe.
 */
@FunctionalInterface
public interface BufferRecycler {
    /** Drops the array; the garbage collector reclaims it. */
    BufferRecycler NONE = array -> { };

    void recycle(byte[] array);
}
