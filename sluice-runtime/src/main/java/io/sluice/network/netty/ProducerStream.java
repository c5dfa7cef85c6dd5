package io.sluice.network.netty;

import io.netty.channel.ChannelHandlerContext;
import io.sluice.network.Buffer;
import io.sluice.network.BufferAvailabilityListener;
import io.sluice.network.ChannelKey;
import io.sluice.network.ChannelReleasedException;
import io.sluice.network.EndOfPartition;
import io.sluice.network.LocalChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Sends one channel's buffers to its remote consumer, one per credit. The producer task fills the
 * channel's {@link LocalChannel} as it does for a local consumer (and blocks there when it is full,
 * which is the backpressure); this stream drains it on the connection's event loop while the
 * consumer has credits, and stops when they run out — without blocking the event loop, so the other
 * channels of the connection keep flowing. Each data buffer is copied into a frame and recycled at
 * once, so the producer's buffer pool refills without waiting for the network.
 *
 * <p>Threading: {@link #notifyBufferAvailable} may be called by any thread (the producer's, or the
 * releasing one); everything else runs on the connection's event loop.
 */
final class ProducerStream implements BufferAvailabilityListener {
    private final int id;
    private final ChannelKey key;
    private final LocalChannel channel;
    private final ChannelHandlerContext ctx;
    private final ProducerConnection connection;
    private final DataExchangeMetrics metrics;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();

    // Event loop only.
    private int credits;
    private boolean done;

    ProducerStream(int id, ChannelKey key, LocalChannel channel, int credits, ChannelHandlerContext ctx,
                   ProducerConnection connection, DataExchangeMetrics metrics) {
        this.id = id;
        this.key = key;
        this.channel = channel;
        this.credits = credits;
        this.ctx = ctx;
        this.connection = connection;
        this.metrics = metrics;
    }

    int id() {
        return id;
    }

    ChannelKey key() {
        return key;
    }

    LocalChannel channel() {
        return channel;
    }

    /** The channel has a buffer or was released: drain it on the event loop (once per burst of calls). */
    @Override
    public void notifyBufferAvailable(int channelIndex) {
        if (drainScheduled.compareAndSet(false, true)) {
            ctx.executor().execute(this::drain);
        }
    }

    /** The consumer's task freed {@code n} slots. Event loop. */
    void addCredits(int n) {
        credits += n;
        drain();
    }

    /** Stops sending (the consumer cancelled, or the connection closed). Event loop. */
    void close() {
        done = true;
    }

    /** Writes what the credits allow; then flushes. Event loop. */
    private void drain() {
        drainScheduled.set(false); // first: a buffer queued from now on schedules another drain
        if (done) {
            return;
        }
        boolean wrote = false;
        try {
            if (channel.isReleased()) {
                channel.poll(); // throws with the release's cause
            }
            while (credits > 0) {
                Buffer buffer = channel.poll();
                if (buffer == null) {
                    break;
                }
                credits--;
                wrote = true;
                if (buffer.isEvent()) {
                    int bytes = WireFormat.HEADER + 17;
                    ctx.write(WireFormat.event(ctx.alloc(), id, buffer.event()), ctx.voidPromise());
                    metrics.sent(bytes);
                    if (buffer.event() == EndOfPartition.INSTANCE) {
                        done = true;
                        connection.streamEnded(this);
                        break;
                    }
                } else {
                    int length = buffer.length();
                    ctx.write(WireFormat.data(ctx.alloc(), id, buffer.data(), length), ctx.voidPromise());
                    buffer.recycle();
                    metrics.sent(WireFormat.HEADER + length);
                }
            }
        } catch (ChannelReleasedException e) {
            done = true;
            connection.streamEnded(this);
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            ctx.write(WireFormat.withReason(ctx.alloc(), WireFormat.RELEASED, id, "the producer's end was released: "
                    + cause), ctx.voidPromise());
            wrote = true;
        }
        if (wrote) {
            ctx.flush();
        }
    }
}
