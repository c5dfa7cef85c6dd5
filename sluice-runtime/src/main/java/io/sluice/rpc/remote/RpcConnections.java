package io.sluice.rpc.remote;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.sluice.security.tls.InternalTls;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connections an {@link RpcService} opened, one per remote address ({@link RpcConnection}):
 * opened on the first call to an address and opened again by the next call after one failed or
 * was lost; the listeners told when the peer or the network ended one; and the failing of requests
 * off the event loop.
 *
 * <p>Opening: the host name is resolved on a worker (it may block on DNS), never on the caller's
 * thread (maybe a main thread) or an event loop; the connect then runs on an event loop within
 * {@code rpc.connect-timeout}, with the mutual-TLS handlers in front when TLS is on, and the frame
 * decoder and the connection's {@link InboundAnswers} handler behind.
 *
 * <p>Thread-safe: callers' threads, event loops and workers use it concurrently; nothing blocks.
 */
final class RpcConnections {
    private static final Logger LOG = LoggerFactory.getLogger(RpcConnections.class);

    private final RpcThreads threads;
    private final ChannelGroup channels;
    private final RpcLimits limits;
    /** Mutual TLS on every connection, or {@code null} for plain TCP. */
    private final InternalTls tls;
    private final Supplier<RpcAddress> ownAddress;
    private final Map<RpcAddress, RpcConnection> connections = new ConcurrentHashMap<>();
    private final List<BiConsumer<RpcAddress, Throwable>> failureListeners = new CopyOnWriteArrayList<>();
    /** Reads the answers of each connection; set once, before the first call. */
    private volatile InboundAnswers answers;
    private volatile boolean closed;

    RpcConnections(RpcThreads threads, ChannelGroup channels, RpcLimits limits, InternalTls tls,
                   Supplier<RpcAddress> ownAddress) {
        this.threads = threads;
        this.channels = channels;
        this.limits = limits;
        this.tls = tls;
        this.ownAddress = ownAddress;
    }

    /** Where the answers of every connection go; once, while the service is made. */
    void answersGoTo(InboundAnswers inboundAnswers) {
        this.answers = Objects.requireNonNull(inboundAnswers, "inboundAnswers");
    }

    /** Whether the service was closed: no connection opens any more. */
    boolean isClosed() {
        return closed;
    }

    /** The connection to {@code target}: the open one, or a new one being opened. */
    RpcConnection connectionTo(RpcAddress target) {
        while (true) {
            RpcConnection existing = connections.get(target);
            if (existing != null) {
                return existing;
            }
            RpcConnection fresh = new RpcConnection(this, target);
            if (connections.putIfAbsent(target, fresh) == null) {
                open(fresh);
                return fresh;
            }
        }
    }

    /** Opens the connection to {@code target} (or reuses the open one); see {@link RpcService#connect}. */
    CompletableFuture<Void> connect(RpcAddress target) {
        if (closed) {
            return CompletableFuture.failedFuture(new RpcException("Cannot connect to " + target + ": the RPC service at "
                    + ownAddress.get() + " is closed"));
        }
        return connectionTo(target).whenOpen.copy();
    }

    private void open(RpcConnection connection) {
        if (closed) {
            connection.close("The RPC service at " + ownAddress.get() + " is closed");
            connections.remove(connection.address, connection);
            return;
        }
        Bootstrap bootstrap = bootstrapFor(connection);
        try {
            // Name resolution may block (DNS): on a worker, never on the caller's (maybe main) thread or an event loop.
            threads.workers().execute(() -> {
                InetSocketAddress resolved = new InetSocketAddress(connection.address.host(), connection.address.port());
                if (resolved.isUnresolved()) {
                    connection.connected(null, new UnknownHostException(connection.address.host()));
                    return;
                }
                bootstrap.connect(resolved).addListener((ChannelFuture f) ->
                        connection.connected(f.isSuccess() ? f.channel() : null, f.cause()));
            });
        } catch (RuntimeException e) {
            // e.g. the service is shutting down
            connection.close("Cannot connect to " + connection.address + ": " + e);
            connections.remove(connection.address, connection);
        }
    }

    /** The client bootstrap of {@code connection}: TLS first (when on), then frames and answers. */
    private Bootstrap bootstrapFor(RpcConnection connection) {
        return new Bootstrap()
                .group(threads.eventLoops())
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, limits.connectTimeoutMillis()))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        ch.pipeline().addLast(new RpcFrameDecoder(limits.maxMessageSize()), answers.handlerFor(connection));
                        if (tls != null) {
                            tls.addClientHandlers(ch.pipeline(), ch.alloc(), connection.address.host(),
                                    connection.address.port());
                        }
                    }
                });
    }

    /** Adds a listener told of every connection the peer or the network ended; see {@link RpcService#onConnectionFailure}. */
    void onConnectionFailure(BiConsumer<RpcAddress, Throwable> listener) {
        failureListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** A connection this service opened was ended by the peer or the network (event loop or worker). */
    void connectionFailed(RpcAddress target, Throwable cause) {
        for (BiConsumer<RpcAddress, Throwable> l : failureListeners) {
            try {
                l.accept(target, cause);
            } catch (RuntimeException e) {
                LOG.warn("A connection failure listener failed on the failure of {}", target, e);
            }
        }
    }

    /** The connection failed or was closed: the next call opens a new one. */
    void forget(RpcConnection connection) {
        connections.remove(connection.address, connection);
    }

    long connectTimeoutMillis() {
        return limits.connectTimeoutMillis();
    }

    /** Fails a request's future, off the event loop. */
    void fail(PendingRequest request, Throwable error) {
        request.cancelTimeout();
        threads.completeOffEventLoop(() -> request.future.completeExceptionally(error));
    }

    void completeOffEventLoop(Runnable completion) {
        threads.completeOffEventLoop(completion);
    }

    /** The connection to {@code target} now, or {@code null} (for tests). */
    RpcConnection current(RpcAddress target) {
        return connections.get(target);
    }

    /** Closes every connection (calls in flight fail with {@code reason}); none opens afterwards. */
    void closeAll(String reason) {
        closed = true;
        for (RpcConnection c : List.copyOf(connections.values())) {
            c.close(reason);
        }
        connections.clear();
    }
}
