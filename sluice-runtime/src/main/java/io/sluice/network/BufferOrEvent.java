package io.sluice.network;

/** A buffer taken from an {@link InputGate}, with the index of the gate channel it came from. */
public record BufferOrEvent(Buffer buffer, int channelIndex) {
}
