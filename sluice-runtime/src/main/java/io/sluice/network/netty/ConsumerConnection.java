package io.sluice.network.netty;

import io.netty.bootstrap.Bootstrap;
import io.sluice.security.tls.InternalTls;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.sluice.network.Buffer;
import io.sluice.network.ChannelReleasedException;
import io.sluice.network.EndOfPartition;
import io.sluice.network.NetworkEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of the one connection from this task executor to the data server of another: it
 * carries every channel whose producer runs there and whose consumer runs here, each under a
 * connection-local id. It asks for each channel ({@code REQUEST} with the channel's initial
 * credits), returns credits as the consumer tasks free slots, and puts every received buffer into
 * its channel, in order. When the connection cannot be made or is lost, every channel on it is
 * released with that cause.
 *
 * <p>Threading: the handler methods and everything marked so run on the connection's event loop;
 * {@link #register}, {@link #cancel} and {@link #execute} may be called by any thread.
 */
final class ConsumerConnection extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerConnection.class);

    private final String address;
    private final EventLoop eventLoop;
    private final DataExchangeMetrics metrics;
    private final Consumer<ConsumerConnection> onClose;
    private final ConcurrentHashMap<Integer, RemoteInputChannel> inputs = new ConcurrentHashMap<>();
    private final AtomicInteger nextId = new AtomicInteger(1);
    private volatile RuntimeException closedCause;
    private volatile Channel channel;

    // Event loop only.
    private boolean connected;

    ConsumerConnection(String address, EventLoop eventLoop, DataExchangeMetrics metrics,
                       Consumer<ConsumerConnection> onClose) {
        this.address = address;
        this.eventLoop = eventLoop;
        this.metrics = metrics;
        this.onClose = onClose;
    }

    /** Connects (asynchronously) to {@code address}'s data server; channels registered meanwhile are requested once it is up. */
    void connect(Bootstrap template, int maxFrameLength, InternalTls tls) {
        int colon = address.lastIndexOf(':');
        String host;
        int port;
        try {
            host = address.substring(0, colon);
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (RuntimeException e) {
            close(new RemoteChannelException("The data address '" + address + "' of a producer task executor is not"
                    + " host:port"));
            return;
        }
        ConsumerConnection self = this;
        ChannelFuture future = template.clone(eventLoop).handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(Frames.decoder(maxFrameLength), self);
                if (tls != null) {
                    tls.addClientHandlers(ch.pipeline(), ch.alloc(), host, port);
                }
            }
        }).connect(host, port);
        channel = future.channel();
        future.addListener(f -> {
            if (!f.isSuccess()) {
                close(new RemoteChannelException("Could not connect to the data server " + address + " of the task"
                        + " executor running the producers (" + f.cause() + "); is that task executor running and"
                        + " reachable? Its channels are released and the job restarts", f.cause()));
                return;
            }
            connected = true;
            Channel ch = future.channel();
            ch.write(WireFormat.hello(ch.alloc()), ch.voidPromise());
            for (RemoteInputChannel in : inputs.values()) {
                sendRequest(in);
            }
            ch.flush();
        });
    }

    String address() {
        return address;
    }

    boolean isClosed() {
        return closedCause != null;
    }

    int newId() {
        return nextId.getAndIncrement();
    }

    /** Adds {@code in} to this connection and asks the producer side for it. Any thread. */
    void register(RemoteInputChannel in) {
        inputs.put(in.id(), in);
        RuntimeException closed = closedCause;
        if (closed != null) {
            inputs.remove(in.id());
            in.releaseFromRemote(closed);
            return;
        }
        eventLoop.execute(() -> {
            if (connected && inputs.get(in.id()) == in) {
                sendRequest(in);
                channel.flush();
            }
        });
    }

    /** Event loop. */
    private void sendRequest(RemoteInputChannel in) {
        if (!in.requested) {
            in.requested = true;
            channel.write(WireFormat.request(channel.alloc(), in.id(), in.capacity(), in.key()), channel.voidPromise());
        }
    }

    void execute(Runnable task) {
        eventLoop.execute(task);
    }

    /** Event loop. */
    void sendCredits(RemoteInputChannel in, int credits) {
        if (connected && in.requested && inputs.get(in.id()) == in) {
            channel.writeAndFlush(WireFormat.credit(channel.alloc(), in.id(), credits), channel.voidPromise());
        }
    }

    /** The consumer released {@code in}: the producer side releases its end too. Any thread. */
    void cancel(RemoteInputChannel in, Throwable cause) {
        if (inputs.remove(in.id(), in)) {
            eventLoop.execute(() -> {
                if (connected && in.requested && channel.isActive()) {
                    channel.writeAndFlush(WireFormat.withReason(channel.alloc(), WireFormat.CANCEL, in.id(),
                            String.valueOf(cause)), channel.voidPromise());
                }
            });
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        try {
            int bytes = frame.readableBytes() + 4;
            byte type = frame.readByte();
            int id = frame.readInt();
            RemoteInputChannel in = inputs.get(id);
            switch (type) {
                case WireFormat.DATA -> {
                    metrics.received(bytes);
                    if (in != null) {
                        int length = frame.readableBytes();
                        byte[] array = in.takeArray(length);
                        frame.readBytes(array, 0, length);
                        deliver(in, Buffer.data(array, length, in));
                    }
                }
                case WireFormat.EVENT -> {
                    metrics.received(bytes);
                    NetworkEvent event = WireFormat.readEvent(frame);
                    if (in != null) {
                        if (event == EndOfPartition.INSTANCE) {
                            inputs.remove(id, in);
                            in.endOfPartitionReceived();
                        }
                        deliver(in, Buffer.event(event));
                    }
                }
                case WireFormat.RELEASED -> {
                    String reason = WireFormat.readReason(frame);
                    if (in != null && inputs.remove(id, in)) {
                        in.releaseFromRemote(new RemoteChannelException("The producer of " + in.key() + " at "
                                + address + " released its end: " + reason));
                    }
                }
                default -> {
                    LOG.warn("Data client: unexpected frame type {} from the data server {}; closing the connection",
                            type, address);
                    ctx.close();
                }
            }
        } finally {
            frame.release();
        }
    }

    /** Event loop. The producer sends only against credits, so the channel always has room. */
    private void deliver(RemoteInputChannel in, Buffer buffer) {
        try {
            if (!in.channel().offer(buffer)) {
                inputs.remove(in.id(), in);
                RemoteChannelException violation = new RemoteChannelException("The data server " + address
                        + " sent a buffer on " + in.key() + " without a credit (its queue of " + in.capacity()
                        + " buffers is full): a protocol error; releasing the channel");
                in.channel().release(violation); // tells the producer (CANCEL)
            }
        } catch (ChannelReleasedException released) {
            // Released here meanwhile; the producer hears of it through CANCEL.
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        close(new RemoteChannelException("Connection to the data server " + address + " (the task executor running"
                + " the producers) was lost"));
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.warn("Data client: connection to {} failed; closing it and releasing its channels: {}", address,
                cause.toString());
        close(new RemoteChannelException("Connection to the data server " + address + " failed: " + cause, cause));
        ctx.close();
    }

    /** Releases every channel of this connection with {@code cause} and closes it. Any thread; idempotent. */
    void close(RuntimeException cause) {
        if (closedCause == null) {
            closedCause = cause;
        }
        onClose.accept(this);
        List<RemoteInputChannel> all = new ArrayList<>(inputs.values());
        for (RemoteInputChannel in : all) {
            if (inputs.remove(in.id(), in)) {
                in.releaseFromRemote(closedCause);
            }
        }
        Channel ch = channel;
        if (ch != null) {
            ch.close();
        }
    }

    /** Channels on this connection now (for tests). */
    int channelCount() {
        return inputs.size();
    }
}
