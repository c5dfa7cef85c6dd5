package io.sluice.network;

/**
 * Told by a channel that it holds a buffer for its reader, or that it was released. Called by the
 * producer's thread (or the releasing thread) without holding the channel's lock.
 */
public interface BufferAvailabilityListener {
    void notifyBufferAvailable(int channelIndex);
}
