package io.sluice.network;

import java.util.Objects;

/**
 * The unit a channel moves: either a data buffer, holding whole serialized records back to back
 * (no per-record framing; the reader's serializer knows where each record ends), or one
 * {@link NetworkEvent}.
 *
 * <p>Threading: a buffer has one owner at a time. The producer fills it and hands it to a channel,
 * which passes it (under the channel's lock, so with a happens-before edge) to the consumer. The
 * consumer calls {@link #recycle()} once it has read every record; after that the array belongs to
 * the producer again and this buffer must not be read.
 */
public final class Buffer {
    private final NetworkEvent event;
    private final int length;
    private final BufferRecycler recycler;
    private byte[] data;

    private Buffer(byte[] data, int length, BufferRecycler recycler, NetworkEvent event) {
        this.data = data;
        this.length = length;
        this.recycler = recycler;
        this.event = event;
    }

    /** A data buffer whose records are {@code data[0, length)}; {@code recycler} takes the array back. */
    public static Buffer data(byte[] data, int length, BufferRecycler recycler) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(recycler, "recycler");
        if (length < 0 || length > data.length) {
            throw new IllegalArgumentException("Buffer length " + length + " is outside [0, " + data.length + "]");
        }
        return new Buffer(data, length, recycler, null);
    }

    /** A data buffer whose array is not reused after reading. */
    public static Buffer data(byte[] data, int length) {
        return data(data, length, BufferRecycler.NONE);
    }

    public static Buffer event(NetworkEvent event) {
        return new Buffer(null, 0, BufferRecycler.NONE, Objects.requireNonNull(event, "event"));
    }

    public boolean isEvent() {
        return event != null;
    }

    /** The event, or {@code null} for a data buffer. */
    public NetworkEvent event() {
        return event;
    }

    /** The backing array of a data buffer; valid bytes are {@code [0, length())}. */
    public byte[] data() {
        if (event != null) {
            throw new IllegalStateException("An event buffer (" + event + ") has no data");
        }
        byte[] d = data;
        if (d == null) {
            throw new IllegalStateException("This data buffer was already recycled; its array may hold other records now");
        }
        return d;
    }

    public int length() {
        return length;
    }

    /** Returns the array to its producer. Does nothing for events; a second call on data throws. */
    public void recycle() {
        if (event != null) {
            return;
        }
        byte[] d = data();
        data = null;
        recycler.recycle(d);
    }

    @Override
    public String toString() {
        return event != null ? "Buffer[" + event + "]" : "Buffer[" + length + " bytes]";
    }
}
