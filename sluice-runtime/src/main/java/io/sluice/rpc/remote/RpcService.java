package io.sluice.rpc.remote;

import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.sluice.config.Configuration;
import io.sluice.config.RpcOptions;
import io.sluice.security.tls.InternalTls;
import io.sluice.util.Clock;
import io.sluice.util.SystemClock;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
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
 *
 * <p>Structure: this class is the public face and puts the parts together, each with one job:
 * {@link RpcThreads} (event loops, workers, timer), {@link RpcServer} (the listening socket and the
 * pipeline of accepted connections), {@link InboundCalls} (dispatch of arriving calls: endpoint,
 * method, fencing, the message-type filter, answers), {@link RpcConnections} with
 * {@link RpcConnection} (the outgoing connections, one per address), {@link OutboundCalls} (requests
 * and one-way messages, their ids and timeouts), {@link InboundAnswers} (answers matched to their
 * {@link PendingRequest}s), {@link GatewayProxies} (the proxies) and {@link EndpointRegistry} with
 * {@link GatewaySerialization} (what is exposed, and gateways passed by reference).
 */
public final class RpcService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RpcService.class);
    private static final AtomicInteger SERVICES = new AtomicInteger();

    private final RpcThreads threads;
    private final ChannelGroup channels;
    private final RpcAddress address;
    private final EndpointRegistry endpoints;
    /** What the gateways this service serves and calls carry: the only classes it reads. */
    private final RpcMessageTypes messageTypes = new RpcMessageTypes();
    private final RpcConnections connections;
    private final OutboundCalls calls;
    private volatile boolean closed;

    private RpcService(Builder b) {
        int serviceNumber = SERVICES.incrementAndGet();
        RpcLimits limits = RpcLimits.of(b.configuration);
        ClassLoader classLoader = b.classLoader != null ? b.classLoader : RpcService.class.getClassLoader();
        Supplier<RpcAddress> ownAddress = this::address;
        this.endpoints = new EndpointRegistry(String.valueOf(serviceNumber));
        GatewaySerialization serialization = new GatewaySerialization(ownAddress, endpoints, messageTypes, classLoader,
                this::proxy);
        this.threads = new RpcThreads(serviceNumber, b.ioThreads, b.timer);
        this.channels = new DefaultChannelGroup("sluice-rpc-" + serviceNumber, GlobalEventExecutor.INSTANCE);
        RateLimitedLog receiveFailures = new RateLimitedLog(LOG::warn, b.clock, Duration.ofSeconds(10));
        this.connections = new RpcConnections(threads, channels, limits, b.tls, ownAddress);
        connections.answersGoTo(new InboundAnswers(connections, serialization, limits.maxMessageSize(), receiveFailures,
                ownAddress));
        this.calls = new OutboundCalls(connections, serialization, threads.timer(), limits,
                new RateLimitedLog(LOG::warn, b.clock, Duration.ofSeconds(10)), ownAddress);
        InboundCalls inbound = new InboundCalls(ownAddress, endpoints, limits.maxMessageSize(), serialization, threads,
                receiveFailures);
        RpcServer server;
        try {
            server = RpcServer.bind(b.bindHost, b.port, threads, channels, limits.maxMessageSize(), inbound, b.tls,
                    ownAddress);
        } catch (RuntimeException e) {
            threads.shutDown();
            throw e;
        }
        this.address = new RpcAddress(b.advertisedHost != null ? b.advertisedHost : b.bindHost, server.port());
        LOG.info("RPC service listening on {} (advertised as {}); timeout {} ms, max message size {} bytes, {}",
                server.localAddress(), address, limits.timeoutMillis(), limits.maxMessageSize(),
                b.tls == null ? "plain TCP" : "mutual TLS (" + b.tls.providerName() + ")");
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

    /** A proxy of this service (for gateways that arrive by reference). */
    private Object proxy(ClassLoader loader, RpcAddress target, String endpoint, List<Class<?>> interfaces, UUID token,
                         Map<String, Serializable> constants) {
        return GatewayProxies.create(calls, loader, target, endpoint, interfaces, token, constants);
    }

    /**
     * A proxy like {@code remoteGateway} (same target, interfaces and constants) whose calls carry
     * {@code fencingToken} instead; {@code gateway} itself if it is not a remote proxy of an RPC
     * service (a local object is called directly, without fencing).
     */
    public static <G> G withFencingToken(G gateway, UUID fencingToken) {
        return GatewayProxies.withFencingToken(gateway, fencingToken);
    }

    /** The fencing token the calls of {@code gateway} carry: its proxy's, or {@code null} for anything else. */
    public static UUID fencingTokenOf(Object gateway) {
        return GatewayProxies.handlerOf(gateway).map(h -> h.fencingToken).orElse(null);
    }

    /**
     * The values of the synchronous getters of {@code gateway} as a {@code gatewayInterface}
     * ({@code id()}, {@code numberOfSlots()}, ...), by method name: the constants for
     * {@link #remoteGateway} of a proxy to it (a registration carries them to the other side).
     */
    public static <G> Map<String, Serializable> synchronousGetters(Class<G> gatewayInterface, G gateway) {
        return GatewayInterfaces.constantsOf(gateway, List.of(gatewayInterface));
    }

    /** Where a remote gateway proxy calls, or empty for a local gateway. */
    public static Optional<RpcAddress> addressOf(Object gateway) {
        return GatewayProxies.handlerOf(gateway).map(h -> h.address);
    }

    /** Whether {@code gateway} is a remote proxy (of any RPC service). */
    public static boolean isRemote(Object gateway) {
        return GatewayProxies.handlerOf(gateway).isPresent();
    }

    // ------------------------------------------------------------------ connections

    /**
     * Opens the connection to {@code target}, or reuses the one open: completes (off the event loop)
     * once it is open, or fails with an {@link RpcConnectionException} whose cause says why (a
     * {@link java.net.ConnectException} when the port refused it). Never blocks; any thread.
     */
    public CompletableFuture<Void> connect(RpcAddress target) {
        return connections.connect(target);
    }

    /**
     * Adds a listener told of every connection this service opened that the peer or the network
     * ended (reset, closed by the peer, refused, unreachable), with the cause ({@code null} for an
     * orderly close by the peer); not of connections this service closed itself. It runs on an
     * event loop or an RPC worker and must not block (hop to your own thread).
     */
    public void onConnectionFailure(BiConsumer<RpcAddress, Throwable> listener) {
        connections.onConnectionFailure(listener);
    }

    /** The connection to {@code target} now, or {@code null} (for tests). */
    RpcConnection currentConnection(RpcAddress target) {
        return connections.current(target);
    }

    /** This service's outgoing connections (for tests of a connection). */
    RpcConnections connections() {
        return connections;
    }

    /** The name prefix of this service's threads, {@code sluice-rpc-<n>-}. */
    String threadNamePrefix() {
        return threads.namePrefix();
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
        connections.closeAll("The RPC service at " + address + " was closed before the answer came");
        channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        endpoints.clear();
        threads.shutDown();
        LOG.info("RPC service at {} closed", address);
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
