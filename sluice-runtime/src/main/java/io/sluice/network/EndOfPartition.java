package io.sluice.network;

/** The producer of a channel has finished: nothing follows this event on that channel. */
public enum EndOfPartition implements NetworkEvent {
    INSTANCE
}
