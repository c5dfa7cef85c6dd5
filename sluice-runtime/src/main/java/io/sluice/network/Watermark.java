package io.sluice.network;

/**
 * Event time on this channel has progressed to {@code timestamp}: the producer sends no record with
 * a timestamp at or below it any more (late records aside). Travels in order with the data, so a
 * channel blocked for barrier alignment holds its watermarks behind its records. Immutable.
 */
public record Watermark(long timestamp) implements NetworkEvent {
}
