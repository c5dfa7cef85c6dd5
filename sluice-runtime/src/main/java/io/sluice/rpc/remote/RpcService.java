package io.sluice.rpc.remote;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.sluice.config.Configuration;
import io.sluice.config.RpcOptions;
import io.sluice.security.tls.InternalTls;
import io.sluice.util.Clock;
import io.sluice.util.SystemClock;
import java.io.IOException;
import java.io.Serializable;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Network RPC for gateways, on Netty: a server that exposes gateway objects under endpoint names,
 * and remote proxies that implement gateway interfaces by calling such endpoints on other processes
 * (or on this one). Local and remote gateways are interchangeable: a method returning
 * {@code CompletableFuture} is a request (its future completes with the remote answer, or fails
 * within {@code rpc.timeout} naming the call, the target and the timeout); a {@code void} method is
 * a one-way message (a failure to deliver it is logged, at most every 10 s per target); a
 * synchronous getter is answered by the proxy from the constants it was created with. Arguments and
 * results are Java-serialized ({@link RpcSerialization}): gateway objects among them travel by
 * reference (the receiver gets a proxy calling back, or the local object when the reference points
 * back to it), throwables keep their class name, message, stack trace, causes and the
 * {@code UnrecoverableJobException} marker even where their class is unknown.
 *
 * <p>Connections: one per remote address, multiplexing every call to it, opened on the first call
 * and opened again on the next call after it failed. Calls to one address are delivered in the
 * order they were made (one-way messages and requests alike, whenever one call returned before the
 * next began, on any threads), and the receiver invokes them in that order.
 *
 * <p>Threads: {@code ioThreads} Netty event-loop threads ({@code sluice-rpc-<n>-io-*}, daemon) do
 * the network I/O, split frames, deserialize arguments and invoke the exposed objects, whose
 * gateway methods must not block (the gateway rule: they hop onto their main thread); answers are
 * serialized and callers' futures completed on worker threads ({@code sluice-rpc-<n>-worker-*},
 * daemon, created on demand), so callbacks of a caller never run on an event loop; timeouts are
 * scheduled on the injected scheduler (by default one daemon thread {@code sluice-rpc-<n>-timer}).
 * All methods are thread-safe and never block, except {@link #close()}.
 *
 * <p>Fencing: an endpoint exposed with a token supplier refuses calls whose token is not its current
 * one ({@link FencingTokenMismatchException}), except to {@link Unfenced} methods; a proxy carries the
 * token it was created with ({@link #withFencingToken} makes one for another token). An object passed
 * by reference that is a {@link FencedGateway} is exported fenced with its own token.
 *
 * <p>Security: with {@link Builder#tls} every connection is mutual TLS, so only a process with a
 * certificate of the cluster's CA can call an endpoint; without it anyone who can connect may call
 * every exposed endpoint. Deserialization accepts only the argument and result types of the gateway
 * interfaces ({@link RpcMessageTypes}), with size and depth limits.
 */
public final class RpcService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RpcService.class);
    private static final AtomicInteger SERVICES = new AtomicInteger();
    private static final Object[] NO_ARGS = new Object[0];

    private final int serviceNumber = SERVICES.incrementAndGet();
    private final long timeoutMillis;
    private final long connectTimeoutMillis;
    private final int maxMessageSize;
    private final ScheduledExecutorService timer;
    private final boolean ownsTimer;
    private final EventLoopGroup eventLoops;
    private final ExecutorService workers;
    private final ChannelGroup channels;
    private final Channel serverChannel;
    private final RpcAddress address;
    private final RateLimitedLog sendFailures;
    private final RateLimitedLog receiveFailures;

    private final EndpointRegistry endpoints = new EndpointRegistry(String.valueOf(serviceNumber));
    private final Map<RpcAddress, RpcConnection> connections = new ConcurrentHashMap<>();
    private final AtomicLong nextRequestId = new AtomicLong();
    /** What the gateways this service serves and calls carry: the only classes it reads. */
    private final RpcMessageTypes messageTypes = new RpcMessageTypes();
    private final GatewaySerialization serialization;
    private final InboundCalls calls;
    /** Mutual TLS on every connection, or {@code null} for plain TCP. */
    private final InternalTls tls;
    private volatile boolean closed;

    private RpcService(Builder b) {
        Configuration conf = b.configuration;
        this.timeoutMillis = conf.get(RpcOptions.TIMEOUT).toMillis();
        this.connectTimeoutMillis = conf.get(RpcOptions.CONNECT_TIMEOUT).toMillis();
        this.maxMessageSize = conf.get(RpcOptions.MAX_MESSAGE_SIZE);
        ClassLoader classLoader = b.classLoader != null ? b.classLoader : RpcService.class.getClassLoader();
        this.tls = b.tls;
        this.serialization = new GatewaySerialization(this::address, endpoints, messageTypes, classLoader, this::proxy);
        String prefix = "sluice-rpc-" + serviceNumber;
        if (b.timer != null) {
            this.timer = b.timer;
            this.ownsTimer = false;
        } else {
            java.util.concurrent.ScheduledThreadPoolExecutor own =
                    new java.util.concurrent.ScheduledThreadPoolExecutor(1, daemon(prefix + "-timer", false));
            own.setRemoveOnCancelPolicy(true); // answered requests do not leave their timeouts queued
            this.timer = own;
            this.ownsTimer = true;
        }
        this.sendFailures = new RateLimitedLog(LOG::warn, b.clock, Duration.ofSeconds(10));
        this.receiveFailures = new RateLimitedLog(LOG::warn, b.clock, Duration.ofSeconds(10));
        this.eventLoops = new NioEventLoopGroup(b.ioThreads, new DefaultThreadFactory(prefix + "-io", true) {
            @Override
            protected Thread newThread(Runnable r, String name) {
                Thread t = super.newThread(r, name);
                t.setContextClassLoader(RpcService.class.getClassLoader()); // not the starting thread's, maybe a job's
                return t;
            }
        });
        this.workers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                daemon(prefix + "-worker-", true));
        this.channels = new DefaultChannelGroup(prefix, GlobalEventExecutor.INSTANCE);
        this.calls = new InboundCalls(this, endpoints, maxMessageSize, serialization, workers, receiveFailures);
        ServerBootstrap server = new ServerBootstrap()
                .group(eventLoops)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true) // a restarted process gets its fixed port back at once
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        ch.pipeline().addLast(new RpcFrameDecoder(maxMessageSize), calls);
                        if (tls != null) {
                            tls.addServerHandlers(ch.pipeline(), ch.alloc(), "RPC port " + address());
                        }
                    }
                });
        try {
            ChannelFuture bound = server.bind(b.bindHost, b.port).awaitUninterruptibly();
            if (!bound.isSuccess()) {
                throw new RpcException("Cannot listen for RPC on " + b.bindHost + ":" + b.port + " (" + bound.cause()
                        + "); choose another rpc port (0 picks a free one) or stop the process holding it", bound.cause());
            }
            this.serverChannel = bound.channel();
            channels.add(serverChannel);
        } catch (RuntimeException e) {
            shutDownThreads();
            throw e;
        }
        int port = ((InetSocketAddress) serverChannel.localAddress()).getPort();
        this.address = new RpcAddress(b.advertisedHost != null ? b.advertisedHost : b.bindHost, port);
        LOG.info("RPC service listening on {} (advertised as {}); timeout {} ms, max message size {} bytes, {}",
                serverChannel.localAddress(), address, timeoutMillis, maxMessageSize,
                tls == null ? "plain TCP" : "mutual TLS (" + tls.providerName() + ")");
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The address other processes reach this service at (the bound port, the advertised host). */
    public RpcAddress address() {
        return address;
    }

    // ------------------------------------------------------------------ exposing

    /**
     * Exposes {@code gateway} under {@code name} for the calls of {@code gatewayInterface}. With a
     * {@code fencingToken} supplier, a call is accepted only when it carries the supplier's current
     * token (a supplier answering {@code null} refuses every call). Replaces an earlier endpoint of
     * that name.
     */
    public <G> void expose(String name, Class<G> gatewayInterface, G gateway, Supplier<UUID> fencingToken) {
        expose(name, gatewayInterface, gateway, fencingToken, null);
    }

    /**
     * Like {@link #expose(String, Class, Object, Supplier)}; a call refused because the supplier has
     * no token now (the endpoint does not lead) fails with an error that adds
     * {@code notLeadingHint}'s answer (who leads instead, e.g. "job manager jm-2 at host:6123 leads";
     * {@code null}: nothing to add). Both suppliers are called on I/O threads: from memory, thread-safe.
     * Methods annotated {@link Unfenced} are answered whatever the token.
     */
    public <G> void expose(String name, Class<G> gatewayInterface, G gateway, Supplier<UUID> fencingToken,
                           Supplier<String> notLeadingHint) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(gateway, "gateway");
        GatewayInterfaces.register(gatewayInterface);
        GatewayInterfaces.validate(gatewayInterface);
        List<Class<?>> interfaces = new ArrayList<>();
        interfaces.add(gatewayInterface);
        for (Class<?> more : GatewayInterfaces.of(gateway.getClass())) {
            if (!interfaces.contains(more)) {
                interfaces.add(more);
            }
        }
        interfaces.forEach(messageTypes::register);
        endpoints.expose(new Endpoint(name, interfaces, gateway, false, fencingToken, notLeadingHint), gateway);
    }

    /** Removes the endpoint {@code name}; later calls to it fail as calls to a missing endpoint. */
    public void unexpose(String name) {
        endpoints.unexpose(name);
    }

    /**
     * Ends the export of an object that was passed by reference (for example a job master that
     * ended): later calls from other processes to it fail as calls to a missing endpoint. Objects
     * exported by reference are also held only weakly, so one that is no longer used here is
     * unexported once it is garbage-collected.
     */
    public void unexport(Object gateway) {
        endpoints.unexport(gateway);
    }

    /** The endpoint names exposed now (by name or by reference), sorted. */
    public List<String> endpointNames() {
        return endpoints.names();
    }

    /** Registers an interface as a gateway: objects implementing it are passed by reference. */
    public static void registerGatewayInterface(Class<?> gatewayInterface) {
        GatewayInterfaces.register(gatewayInterface);
    }

    // ------------------------------------------------------------------ proxies

    /**
     * A proxy implementing {@code gatewayInterface} by calling endpoint {@code endpoint} at
     * {@code target}. Its calls carry {@code fencingToken} ({@code null}: unfenced); its synchronous
     * getters answer from {@code constants} (method name to value, e.g. {@code id},
     * {@code numberOfSlots}). Creating it opens no connection.
     */
    public <G> G remoteGateway(RpcAddress target, String endpoint, Class<G> gatewayInterface, UUID fencingToken,
                               Map<String, ?> constants) {
        GatewayInterfaces.register(gatewayInterface);
        GatewayInterfaces.validate(gatewayInterface);
        messageTypes.register(gatewayInterface);
        Map<String, Serializable> values = new HashMap<>();
        if (constants != null) {
            constants.forEach((k, v) -> {
                if (v != null && !(v instanceof Serializable)) {
                    throw new IllegalArgumentException("Constant " + k + " of a remote " + gatewayInterface.getSimpleName()
                            + " is a " + v.getClass().getName() + ", which is not Serializable");
                }
                values.put(k, (Serializable) v);
            });
        }
        return gatewayInterface.cast(proxy(gatewayInterface.getClassLoader(), target, endpoint, List.of(gatewayInterface),
                fencingToken, values));
    }

    /**
     * A proxy like {@code remoteGateway} (same target, interfaces and constants) whose calls carry
     * {@code fencingToken} instead; {@code gateway} itself if it is not a remote proxy of an RPC
     * service (a local object is called directly, without fencing).
     */
    @SuppressWarnings("unchecked")
    public static <G> G withFencingToken(G gateway, UUID fencingToken) {
        if (gateway != null && Proxy.isProxyClass(gateway.getClass())
                && Proxy.getInvocationHandler(gateway) instanceof RemoteGatewayHandler h) {
            return (G) h.service.proxy(gateway.getClass().getClassLoader(), h.address, h.endpoint, h.interfaces,
                    fencingToken, h.constants);
        }
        return gateway;
    }

    /** The fencing token the calls of {@code gateway} carry: its proxy's, or {@code null} for anything else. */
    public static UUID fencingTokenOf(Object gateway) {
        return gateway != null && Proxy.isProxyClass(gateway.getClass())
                && Proxy.getInvocationHandler(gateway) instanceof RemoteGatewayHandler h ? h.fencingToken : null;
    }

    private Object proxy(ClassLoader loader, RpcAddress target, String endpoint, List<Class<?>> interfaces, UUID token,
                         Map<String, Serializable> constants) {
        RemoteGatewayHandler handler = new RemoteGatewayHandler(this, target, endpoint, interfaces, token, constants);
        return Proxy.newProxyInstance(loader, interfaces.toArray(new Class<?>[0]), handler);
    }

    /**
     * The values of the synchronous getters of {@code gateway} as a {@code gatewayInterface}
     * ({@code id()}, {@code numberOfSlots()}, ...), by method name: the constants for
     * {@link #remoteGateway} of a proxy to it (a registration carries them to the other side).
     */
    public static <G> Map<String, Serializable> synchronousGetters(Class<G> gatewayInterface, G gateway) {
        return GatewayInterfaces.constantsOf(gateway, List.of(gatewayInterface));
    }

    /** Whether {@code gateway} is a remote proxy (of any RPC service). */
    public static boolean isRemote(Object gateway) {
        return gateway != null && Proxy.isProxyClass(gateway.getClass())
                && Proxy.getInvocationHandler(gateway) instanceof RemoteGatewayHandler;
    }

    // ------------------------------------------------------------------ outgoing calls

    CompletableFuture<Object> request(RemoteGatewayHandler target, Method method, Object[] args) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        String what = GatewayInterfaces.describe(method);
        String where = "'" + target.endpoint + "' at " + target.address;
        long id = nextRequestId.incrementAndGet();
        ByteBuf frame;
        try {
            frame = encode(false, id, target, method, args, what, where);
        } catch (RpcException e) {
            result.completeExceptionally(e);
            return result;
        }
        PendingRequest request = new PendingRequest(id, what, where, result);
        RpcConnection connection = connectionTo(target.address);
        try {
            request.timeout = timer.schedule(() -> connection.expire(request, new RpcTimeoutException(what + " to "
                    + where + " got no answer within " + timeoutMillis + " ms (rpc.timeout); the remote side is slow,"
                    + " stuck or gone")), timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            frame.release();
            result.completeExceptionally(new RpcException("Cannot call " + what + " on " + where + ": the RPC service at "
                    + address + " is closed"));
            return result;
        }
        connection.send(frame, request, null);
        return result;
    }

    void tell(RemoteGatewayHandler target, Method method, Object[] args) {
        String what = GatewayInterfaces.describe(method);
        String where = "'" + target.endpoint + "' at " + target.address;
        ByteBuf frame;
        try {
            frame = encode(true, 0, target, method, args, what, where);
        } catch (RpcException e) {
            sendFailures.warn(target.address + "/" + what, "Dropped the one-way message " + what + ": " + e.getMessage());
            return;
        }
        connectionTo(target.address).send(frame, null, error -> sendFailures.warn(target.address.toString(),
                "Could not deliver the one-way message " + what + " to " + where + ": " + error.getMessage()));
    }

    private ByteBuf encode(boolean oneWay, long id, RemoteGatewayHandler target, Method method, Object[] args,
                           String what, String where) {
        if (closed) {
            throw new RpcException("Cannot call " + what + " on " + where + ": the RPC service at " + address + " is closed");
        }
        byte[] payload;
        try {
            payload = RpcSerialization.serialize(args == null ? NO_ARGS : args, serialization);
        } catch (IOException | RuntimeException e) {
            throw new RpcException("Cannot call " + what + " on " + where + ": its arguments cannot be serialized ("
                    + (e instanceof IOException io ? RpcSerialization.describe(io) : e.toString()) + ")", e);
        }
        String signature = GatewayInterfaces.signature(method);
        long length = RpcFrame.callFrameLength(target.endpoint, signature, target.fencingToken, payload.length);
        if (length > maxMessageSize) {
            throw new RpcMessageTooLargeException("Cannot call " + what + " on " + where + ": the call is " + length
                    + " bytes, above the largest RPC message of " + maxMessageSize + " bytes; raise "
                    + RpcOptions.MAX_MESSAGE_SIZE.key() + " (on both sides) or send less");
        }
        return RpcFrame.encodeCall(io.netty.buffer.ByteBufAllocator.DEFAULT, oneWay, id, target.endpoint, signature,
                target.fencingToken, payload);
    }

    private RpcConnection connectionTo(RpcAddress target) {
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

    private void open(RpcConnection connection) {
        if (closed) {
            connection.close("The RPC service at " + address + " is closed");
            connections.remove(connection.address, connection);
            return;
        }
        Bootstrap bootstrap = new Bootstrap()
                .group(eventLoops)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeoutMillis))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        ch.pipeline().addLast(new RpcFrameDecoder(maxMessageSize), new ClientHandler(connection));
                        if (tls != null) {
                            tls.addClientHandlers(ch.pipeline(), ch.alloc(), connection.address.host(),
                                    connection.address.port());
                        }
                    }
                });
        try {
            // Name resolution may block (DNS): on a worker, never on the caller's (maybe main) thread or an event loop.
            workers.execute(() -> {
                InetSocketAddress resolved = new InetSocketAddress(connection.address.host(), connection.address.port());
                if (resolved.isUnresolved()) {
                    connection.connected(null, new java.net.UnknownHostException(connection.address.host()));
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

    /** The connection failed or was closed: the next call opens a new one. */
    void forget(RpcConnection connection) {
        connections.remove(connection.address, connection);
    }

    long connectTimeoutMillis() {
        return connectTimeoutMillis;
    }

    /** Fails a request's future, off the event loop. */
    void fail(PendingRequest request, Throwable error) {
        request.cancelTimeout();
        completeOffEventLoop(() -> request.future.completeExceptionally(error));
    }

    void completeOffEventLoop(Runnable completion) {
        try {
            workers.execute(completion);
        } catch (RejectedExecutionException closing) {
            completion.run();
        }
    }

    // ------------------------------------------------------------------ answers (client side, event loop)

    private void onAnswer(RpcConnection connection, RpcFrame.Answer answer) {
        try {
            PendingRequest request = connection.take(answer.requestId());
            if (request == null) {
                LOG.debug("Answer to request {} from {} came after it timed out; dropped", answer.requestId(), connection.address);
                return;
            }
            request.cancelTimeout();
            Object value;
            try {
                value = RpcSerialization.deserialize(new ByteBufInputStream(answer.payload()), maxMessageSize, serialization);
            } catch (IOException | ClassNotFoundException | RuntimeException e) {
                fail(request, new RpcException("Cannot read the answer to " + request + ": " + e, e));
                return;
            }
            if (!answer.failure()) {
                completeOffEventLoop(() -> request.future.complete(value));
            } else if (value instanceof RpcMessageTooLargeException tooLarge) {
                fail(request, new RpcMessageTooLargeException(request + " failed: " + tooLarge.getMessage(), tooLarge));
            } else if (value instanceof Throwable t) {
                fail(request, t);
            } else {
                fail(request, new RpcException(request + " failed with " + value));
            }
        } finally {
            answer.payload().release();
        }
    }

    private void onOversizedAnswer(RpcConnection connection, RpcFrame.Oversized frame) {
        PendingRequest request = connection.take(frame.requestId());
        if (request != null) {
            fail(request, new RpcMessageTooLargeException("The answer to " + request + " is " + frame.length()
                    + " bytes, above this process's largest RPC message of " + maxMessageSize + " bytes; raise "
                    + RpcOptions.MAX_MESSAGE_SIZE.key() + " (on both sides)"));
        } else {
            receiveFailures.warn(connection.address + "/oversized", "Skipped an RPC frame of " + frame.length()
                    + " bytes from " + connection.address + ", above " + RpcOptions.MAX_MESSAGE_SIZE.key() + " = " + maxMessageSize);
        }
    }

    // ------------------------------------------------------------------ Netty handlers

    /** Inbound frames of a connection this service opened: answers. */
    private final class ClientHandler extends SimpleChannelInboundHandler<RpcFrame> {
        private final RpcConnection connection;
        private Throwable error;

        ClientHandler(RpcConnection connection) {
            this.connection = connection;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, RpcFrame frame) {
            connection.received();
            if (frame instanceof RpcFrame.Answer answer) {
                onAnswer(connection, answer);
            } else if (frame instanceof RpcFrame.Oversized oversized) {
                onOversizedAnswer(connection, oversized);
            } else if (frame instanceof RpcFrame.Call call) {
                call.payload().release();
                receiveFailures.warn("unexpected-call", "Ignored a call frame from " + connection.address
                        + " on a connection " + address + " opened");
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            error = cause;
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            connection.lost(error);
            super.channelInactive(ctx);
        }
    }

    // ------------------------------------------------------------------ lifecycle

    /**
     * Stops listening, closes every connection (calls in flight fail naming this service) and
     * releases all threads. Blocks until the event loops have stopped (a few ms), so it must not be
     * called from one of this service's threads. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (RpcConnection c : List.copyOf(connections.values())) {
            c.close("The RPC service at " + address + " was closed before the answer came");
        }
        connections.clear();
        channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        endpoints.clear();
        shutDownThreads();
        LOG.info("RPC service at {} closed", address);
    }

    private void shutDownThreads() {
        eventLoops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        workers.shutdown();
        if (ownsTimer) {
            timer.shutdownNow();
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String name, boolean numbered) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, numbered ? name + n.incrementAndGet() : name);
            t.setDaemon(true);
            t.setContextClassLoader(RpcService.class.getClassLoader()); // not the creating thread's, maybe a job's
            return t;
        };
    }

    /** The connection to {@code target} now, or {@code null} (for tests). */
    RpcConnection currentConnection(RpcAddress target) {
        return connections.get(target);
    }

    /** The name prefix of this service's threads, {@code sluice-rpc-<n>-}. */
    String threadNamePrefix() {
        return "sluice-rpc-" + serviceNumber + "-";
    }

    @Override
    public String toString() {
        return "RpcService(" + address + ")";
    }

    /** Settings of an {@link RpcService}; {@link #start()} binds it. */
    public static final class Builder {
        private String bindHost = "127.0.0.1";
        private int port;
        private String advertisedHost;
        private Configuration configuration = new Configuration();
        private ScheduledExecutorService timer;
        private Clock clock = SystemClock.INSTANCE;
        private ClassLoader classLoader;
        private int ioThreads = 2;
        private InternalTls tls;

        private Builder() {}

        /** Mutual TLS on every connection, served and opened ({@code null}, the default: plain TCP). */
        public Builder tls(InternalTls tls) {
            this.tls = tls;
            return this;
        }

        /** The host (or IP, {@code 0.0.0.0} for all interfaces) and port to listen on; port 0 picks a free one. */
        public Builder bind(String host, int port) {
            this.bindHost = Objects.requireNonNull(host, "host");
            this.port = port;
            return this;
        }

        /** The host other processes reach this one at, when it differs from the bind host (e.g. {@code 0.0.0.0}). */
        public Builder advertisedHost(String host) {
            this.advertisedHost = host;
            return this;
        }

        /** {@code rpc.timeout}, {@code rpc.connect-timeout}, {@code rpc.max-message-size}. */
        public Builder configuration(Configuration configuration) {
            configuration.validate(List.of(RpcOptions.TIMEOUT, RpcOptions.CONNECT_TIMEOUT, RpcOptions.MAX_MESSAGE_SIZE));
            this.configuration = configuration.copy();
            return this;
        }

        /** Schedules the request timeouts (default: a daemon thread of the service, shut down on close). */
        public Builder timer(ScheduledExecutorService timer) {
            this.timer = timer;
            return this;
        }

        /** For the rate limits of failure logs. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Resolves the classes of received values (default: the runtime's class loader). */
        public Builder classLoader(ClassLoader classLoader) {
            this.classLoader = classLoader;
            return this;
        }

        public Builder ioThreads(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("An RPC service needs at least one I/O thread, got " + n);
            }
            this.ioThreads = n;
            return this;
        }

        /** Binds the server and starts the threads; fails naming the address if it cannot listen. */
        public RpcService start() {
            return new RpcService(this);
        }
    }
}
