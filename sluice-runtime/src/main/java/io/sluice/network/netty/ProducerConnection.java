package io.sluice.network.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.sluice.network.ChannelKey;
import io.sluice.network.LocalChannel;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data server's side of one connection from a consumer task executor: it reads the consumer's
 * requests, credits and cancellations, and runs a {@link ProducerStream} per requested channel. All
 * channels from this task executor to that consumer task executor share the connection.
 *
 * <p>Threading: Netty calls the handler methods on the connection's event loop, which alone touches
 * {@link #streams} and {@link #requested}; {@link #bind} and {@link #sendReleased} may be called by
 * any thread and hop onto it.
 */
final class ProducerConnection extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ProducerConnection.class);

    private final ProducerChannels producers;
    private final DataExchangeMetrics metrics;
    private final String serverAddress;
    private final Runnable onClose;
    private volatile ChannelHandlerContext ctx;

    // Event loop only.
    private final Map<Integer, ProducerStream> streams = new HashMap<>();
    private final Map<Integer, ChannelKey> requested = new HashMap<>();
    private boolean helloSeen;

    ProducerConnection(ProducerChannels producers, DataExchangeMetrics metrics, String serverAddress, Runnable onClose) {
        this.producers = producers;
        this.metrics = metrics;
        this.serverAddress = serverAddress;
        this.onClose = onClose;
    }

    String remoteAddress() {
        ChannelHandlerContext c = ctx;
        return c == null ? "?" : String.valueOf(c.channel().remoteAddress());
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        try {
            byte type = frame.readByte();
            int id = frame.readInt();
            if (!helloSeen) {
                if (type != WireFormat.HELLO || frame.readInt() != WireFormat.MAGIC) {
                    LOG.warn("Data server {}: {} is not a Sluice data-exchange client (its first frame is not a HELLO);"
                            + " closing the connection", serverAddress, ctx.channel().remoteAddress());
                    ctx.close();
                    return;
                }
                int version = frame.readInt();
                if (version != WireFormat.VERSION) {
                    LOG.warn("Data server {}: {} speaks data-exchange protocol version {}, this task executor {};"
                            + " run the same Sluice version on every task manager. Closing the connection",
                            serverAddress, ctx.channel().remoteAddress(), version, WireFormat.VERSION);
                    ctx.close();
                    return;
                }
                helloSeen = true;
                return;
            }
            switch (type) {
                case WireFormat.REQUEST -> {
                    int credits = frame.readInt();
                    ChannelKey key = WireFormat.readKey(frame);
                    requested.put(id, key);
                    producers.request(key, this, id, credits);
                }
                case WireFormat.CREDIT -> {
                    ProducerStream stream = streams.get(id);
                    if (stream != null) {
                        stream.addCredits(frame.readInt());
                    }
                }
                case WireFormat.CANCEL -> {
                    String reason = WireFormat.readReason(frame);
                    ChannelKey key = requested.remove(id);
                    ProducerStream stream = streams.remove(id);
                    if (stream != null) {
                        stream.close();
                    }
                    if (key != null) {
                        producers.cancelled(key, this, new RemoteChannelException("The consumer of " + key + " at "
                                + ctx.channel().remoteAddress() + " released its end: " + reason));
                    }
                }
                default -> {
                    LOG.warn("Data server {}: unexpected frame type {} from {}; closing the connection", serverAddress,
                            type, ctx.channel().remoteAddress());
                    ctx.close();
                }
            }
        } finally {
            frame.release();
        }
    }

    /** Pairs the producer end of {@code key} with request {@code id} of this connection. Any thread. */
    void bind(int id, ChannelKey key, LocalChannel channel, int credits) {
        ChannelHandlerContext c = ctx;
        c.executor().execute(() -> {
            if (!c.channel().isActive()) {
                return; // connectionClosed released it
            }
            ProducerStream stream = new ProducerStream(id, key, channel, credits, c, this, metrics);
            streams.put(id, stream);
            channel.attach(stream, 0); // reports what is queued already, and a release
        });
    }

    /** Tells the consumer that channel {@code id} is released. Any thread. */
    void sendReleased(int id, String reason) {
        ChannelHandlerContext c = ctx;
        c.executor().execute(() -> {
            requested.remove(id);
            if (c.channel().isActive()) {
                c.writeAndFlush(WireFormat.withReason(c.alloc(), WireFormat.RELEASED, id, reason), c.voidPromise());
            }
        });
    }

    /** A stream sent its end of partition or its release. Event loop. */
    void streamEnded(ProducerStream stream) {
        if (streams.get(stream.id()) == stream) {
            streams.remove(stream.id());
            requested.remove(stream.id());
        }
        producers.ended(stream.key(), stream.channel());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed(new RemoteChannelException("Connection from the consumer task executor at "
                + ctx.channel().remoteAddress() + " to data server " + serverAddress + " was lost"));
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.warn("Data server {}: connection from {} failed; closing it and releasing its channels: {}", serverAddress,
                ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }

    private void closed(RemoteChannelException cause) {
        for (ProducerStream s : streams.values()) {
            s.close();
        }
        streams.clear();
        requested.clear();
        producers.connectionClosed(this, cause);
        onClose.run();
    }
}
