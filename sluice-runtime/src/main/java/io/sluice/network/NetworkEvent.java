package io.sluice.network;

/**
 * A control message that travels through a channel in order with the data buffers around it.
 * Events are immutable, so one instance may be sent on many channels and read by any thread.
 */
public sealed interface NetworkEvent permits CheckpointBarrier, EndOfPartition, Watermark, IdleStatus {
}
