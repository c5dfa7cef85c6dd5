package io.sluice.network.netty;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.config.ClusterOptions;
import io.sluice.config.Configuration;
import io.sluice.config.TaskManagerOptions;
import io.sluice.graph.JobId;
import io.sluice.metrics.MeterGroup;
import io.sluice.network.ChannelKey;
import io.sluice.network.ChannelReleasedException;
import io.sluice.network.LocalChannel;
import io.sluice.network.LocalShuffleService;
import io.sluice.network.ShuffleEnvironment;
import io.sluice.security.tls.InternalTls;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data exchange of one task executor over TCP, on Netty (NIO). Channels between two tasks of
 * this task executor stay in memory (an own {@link LocalShuffleService}); a channel to or from a
 * task in another task executor goes over one multiplexed connection per pair of task executors and
 * direction: the consumer's side connects to the producer's data server and asks for the channel,
 * the producer's side sends one buffer per credit.
 *
 * <p>Both ends of a remote channel are {@link LocalChannel}s, so record writers, input gates and
 * barrier alignment work unchanged: the producer task writes into a bounded channel here that the
 * data server drains while the consumer has credits (a full one blocks the producer task, as a full
 * local channel does); the consumer task reads a bounded channel there that the client fills, and
 * every buffer it takes returns a credit. Events (barriers, watermarks, idleness, end of partition)
 * are buffers like the data, in the same order, and cost a credit too. The event loops never block:
 * a channel without credits just stops being drained, so one slow consumer stalls only its own
 * channels.
 *
 * <p>Failure: a lost or refused connection releases every channel on it, on both sides, with a
 * {@link RemoteChannelException} saying which connection; a released end (its task failed or was
 * cancelled, its attempt released) tells the other side, which releases its end with that reason. A
 * consumer that asks before its producer is deployed waits until it registers, or until the
 * attempt is released.
 *
 * <p>Threading: the public methods are thread-safe and never block, except {@link #start} (binds the
 * server) and {@link #close} (waits up to a few seconds for the event loops to stop). Its threads
 * are the event loops {@code sluice-data-<name>-N} (daemons), shared by the server and the client.
 */
public final class NettyShuffleEnvironment implements ShuffleEnvironment, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NettyShuffleEnvironment.class);
    /** The largest frame accepted: a buffer holds whole records, so one huge record makes a huge buffer. */
    private static final int MAX_FRAME_LENGTH = Integer.MAX_VALUE - 16;
    /** How long a connection attempt to another data server may take before its channels are released. */
    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;

    private final String name;
    private final LocalShuffleService local;
    private final EventLoopGroup group;
    private final Channel serverChannel;
    private final String address;
    private final ProducerChannels producers;
    private final Bootstrap clientTemplate;
    private final int arrayLength;
    private final DataExchangeMetrics metrics = new DataExchangeMetrics();
    private final ConcurrentHashMap<String, ConsumerConnection> connections = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<ChannelKey, RemoteInputChannel> consumers = new ConcurrentHashMap<>();
    /** The highest released attempt of each job for the consumer ends; Integer.MAX_VALUE: the whole job. */
    private final ConcurrentHashMap<JobId, Integer> releasedUpTo = new ConcurrentHashMap<>();
    private final AtomicInteger serverConnections = new AtomicInteger();
    /** Mutual TLS on every connection, or {@code null} for plain TCP. */
    private final InternalTls tls;
    private volatile MeterGroup meters;
    private volatile boolean closed;

    private NettyShuffleEnvironment(String name, String host, String advertisedHost, int port, int buffersPerChannel,
                                    int bufferSize, Duration inFlightTarget, int eventLoopThreads, InternalTls tls) {
        this.name = Objects.requireNonNull(name, "name");
        this.tls = tls;
        this.local = new LocalShuffleService(buffersPerChannel, bufferSize, inFlightTarget);
        this.producers = new ProducerChannels(buffersPerChannel);
        this.arrayLength = bufferSize + Math.max(64, bufferSize >> 3);
        this.group = new NioEventLoopGroup(eventLoopThreads,
                DaemonThreadFactory.withSluiceClassLoader(new DefaultThreadFactory("sluice-data-" + name, true)));
        Channel bound;
        try {
            ServerBootstrap server = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.SO_KEEPALIVE, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            serverConnections.incrementAndGet();
                            String self = dataAddress();
                            ch.pipeline().addLast(Frames.decoder(MAX_FRAME_LENGTH),
                                    new ProducerConnection(producers, metrics, self, serverConnections::decrementAndGet));
                            if (tls != null) {
                                tls.addServerHandlers(ch.pipeline(), ch.alloc(), "data port " + self);
                            }
                        }
                    });
            bound = server.bind(host, port).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IllegalStateException("Task executor " + name + " could not start its data server on " + host
                    + ":" + port + " (" + e + "); set " + TaskManagerOptions.DATA_PORT.key() + " to a free port, or 0"
                    + " for any, and " + TaskManagerOptions.HOST.key() + " to an address of this host", e);
        }
        this.serverChannel = bound;
        this.address = advertisedHost + ":" + ((InetSocketAddress) bound.localAddress()).getPort();
        this.clientTemplate = new Bootstrap()
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS);
        LOG.info("Task executor {}: data server listening on {}, {}", name, host.equals(advertisedHost) ? address
                : bound.localAddress() + " (advertised as " + address + ")",
                tls == null ? "plain TCP" : "mutual TLS (" + tls.providerName() + ")");
    }

    /**
     * Starts the data server of task executor {@code name} on {@code host:port} (0: any free port).
     *
     * @param eventLoopThreads threads shared by the server and the client (at least 1)
     */
    public static NettyShuffleEnvironment start(String name, String host, int port, int buffersPerChannel,
                                                int bufferSize, int eventLoopThreads) {
        return start(name, host, host, port, buffersPerChannel, bufferSize, eventLoopThreads);
    }

    /**
     * Starts the data server of task executor {@code name} on {@code host:port} (0: any free port),
     * advertised as {@code advertisedHost} and the bound port in {@link #dataAddress()} (what other
     * task executors connect to: for example a TCP proxy in front of this one).
     *
     * @param eventLoopThreads threads shared by the server and the client (at least 1)
     */
    public static NettyShuffleEnvironment start(String name, String host, String advertisedHost, int port,
                                                int buffersPerChannel, int bufferSize, int eventLoopThreads) {
        return start(name, host, advertisedHost, port, buffersPerChannel, bufferSize, eventLoopThreads, null);
    }

    /**
     * Like {@link #start(String, String, String, int, int, int, int)}, with mutual TLS on every data
     * connection, served and opened ({@code tls} {@code null}: plain TCP).
     */
    public static NettyShuffleEnvironment start(String name, String host, String advertisedHost, int port,
                                                int buffersPerChannel, int bufferSize, int eventLoopThreads,
                                                InternalTls tls) {
        return start(name, host, advertisedHost, port, buffersPerChannel, bufferSize,
                LocalShuffleService.DEFAULT_IN_FLIGHT_TARGET, eventLoopThreads, tls);
    }

    /**
     * Like {@link #start(String, String, String, int, int, int, int, InternalTls)}, with record
     * writers aiming at {@code inFlightTarget} of records in flight while backpressured ({@link
     * Duration#ZERO}: full buffers always).
     */
    public static NettyShuffleEnvironment start(String name, String host, String advertisedHost, int port,
                                                int buffersPerChannel, int bufferSize, Duration inFlightTarget,
                                                int eventLoopThreads, InternalTls tls) {
        if (eventLoopThreads < 1) {
            throw new IllegalArgumentException("The data exchange needs at least one event loop thread, not "
                    + eventLoopThreads);
        }
        return new NettyShuffleEnvironment(name, host, Objects.requireNonNull(advertisedHost, "advertisedHost"), port,
                buffersPerChannel, bufferSize, inFlightTarget, eventLoopThreads, tls);
    }

    /**
     * Starts the data server from {@code configuration}: {@code taskmanager.host}, {@code
     * taskmanager.advertised-host}, {@code taskmanager.data.port}, {@code network.buffers-per-channel},
     * {@code network.buffer-size}, {@code network.in-flight-target}; one event loop thread per two cores (at least one, at most four);
     * mutual TLS on every data connection with {@code tls} ({@code null}: plain TCP).
     */
    public static NettyShuffleEnvironment start(String name, Configuration configuration, InternalTls tls) {
        int threads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
        String host = configuration.get(TaskManagerOptions.HOST);
        String advertised = configuration.get(TaskManagerOptions.ADVERTISED_HOST).trim();
        return start(name, host, advertised.isEmpty() ? host : advertised, configuration.get(TaskManagerOptions.DATA_PORT),
                configuration.get(ClusterOptions.NETWORK_BUFFERS_PER_CHANNEL),
                configuration.get(ClusterOptions.NETWORK_BUFFER_SIZE),
                configuration.get(ClusterOptions.NETWORK_IN_FLIGHT_TARGET), threads, tls);
    }

    @Override
    public String dataAddress() {
        return address;
    }

    @Override
    public int buffersPerChannel() {
        return local.buffersPerChannel();
    }

    @Override
    public int bufferSize() {
        return local.bufferSize();
    }

    @Override
    public Duration inFlightTarget() {
        return local.inFlightTarget();
    }

    @Override
    public LocalChannel channel(ChannelKey key) {
        return local.channel(key);
    }

    @Override
    public LocalChannel remoteOutputChannel(ChannelKey key) {
        checkOpen(key);
        return producers.register(key);
    }

    @Override
    public LocalChannel remoteInputChannel(ChannelKey key, String producerAddress) {
        Objects.requireNonNull(producerAddress, "producerAddress");
        checkOpen(key);
        failIfReleased(key);
        if (producerAddress.equals(address)) {
            throw new IllegalArgumentException("Channel " + key + ": the producer's data address " + producerAddress
                    + " is this task executor's own; ask for the in-memory channel instead");
        }
        ConsumerConnection connection = connection(producerAddress);
        RemoteInputChannel[] self = new RemoteInputChannel[1];
        RemoteInputChannel in = new RemoteInputChannel(key, connection.newId(), connection, local.buffersPerChannel(),
                arrayLength, () -> consumers.remove(key, self[0]));
        self[0] = in;
        if (consumers.putIfAbsent(key, in) != null) {
            throw new IllegalStateException("Channel " + key + " already has a consumer in task executor " + name);
        }
        // releaseAttempt marks the attempt before it scans, so either its scan sees this channel or this check the mark.
        if (isReleased(key)) {
            consumers.remove(key, in);
            failIfReleased(key);
        }
        connection.register(in);
        return in.channel();
    }

    private ConsumerConnection connection(String producerAddress) {
        ConsumerConnection[] created = new ConsumerConnection[1];
        ConsumerConnection c = connections.compute(producerAddress, (a, existing) -> {
            if (existing != null && !existing.isClosed()) {
                return existing;
            }
            created[0] = new ConsumerConnection(a, group.next(), metrics, this::forget);
            return created[0];
        });
        if (created[0] != null) {
            created[0].connect(clientTemplate, MAX_FRAME_LENGTH, tls);
        }
        return c;
    }

    private void forget(ConsumerConnection connection) {
        connections.remove(connection.address(), connection);
    }

    @Override
    public void releaseAttempt(JobId jobId, int attempt, Throwable cause) {
        Objects.requireNonNull(jobId, "jobId");
        local.releaseAttempt(jobId, attempt, cause);
        producers.release(jobId, attempt, cause);
        releasedUpTo.merge(jobId, attempt, Math::max);
        releaseConsumers(jobId, attempt, cause);
    }

    @Override
    public void releaseJob(JobId jobId) {
        Objects.requireNonNull(jobId, "jobId");
        IllegalStateException cause = new IllegalStateException("Job " + jobId + " was released");
        local.releaseJob(jobId);
        producers.release(jobId, -1, cause);
        releasedUpTo.put(jobId, Integer.MAX_VALUE);
        releaseConsumers(jobId, -1, cause);
    }

    /**
     * The task executor lost its job manager and all its tasks have ended: releases every channel,
     * in memory and to and from other task executors (their ends hear of it), and forgets the
     * release marks, so that the next job manager's rounds, numbered from 1 again if it is another
     * process, get fresh channels. Connections to other data servers stay open for reuse.
     */
    @Override
    public void forgetAllDeployments(Throwable cause) {
        Objects.requireNonNull(cause, "cause");
        local.releaseAndForgetAll(cause);
        producers.releaseAndForgetAll(cause);
        for (RemoteInputChannel in : List.copyOf(consumers.values())) {
            in.channel().release(cause); // tells the producer side
        }
        releasedUpTo.clear();
    }

    private void releaseConsumers(JobId jobId, int attemptOrAll, Throwable cause) {
        for (Map.Entry<ChannelKey, RemoteInputChannel> e : List.copyOf(consumers.entrySet())) {
            ChannelKey key = e.getKey();
            if (key.jobId().equals(jobId) && (attemptOrAll < 0 || key.attempt() <= attemptOrAll)) {
                e.getValue().channel().release(cause); // tells the producer side
            }
        }
    }

    /** Buffers and bytes moved over TCP by this task executor. */
    public DataExchangeMetrics metrics() {
        return metrics;
    }

    /** Publishes {@link #metrics()} to {@code registry} tagged with this task executor's name (removed on close). */
    public void bindMetrics(MeterRegistry registry) {
        meters = metrics.bind(registry, name, () -> serverConnections.get() + connections.size());
    }

    /** Connections this task executor opened to other data servers (for tests). */
    public int clientConnectionCount() {
        return connections.size();
    }

    /** Connections other task executors opened to this data server (for tests). */
    public int serverConnectionCount() {
        return serverConnections.get();
    }

    /** Producer ends registered or requested and not yet ended, plus consumer ends not yet ended (for tests). */
    public int remoteChannelCount() {
        return producers.size() + consumers.size();
    }

    /**
     * Closes every connection to other data servers, as if they were lost (for tests of connection
     * loss): every channel on them is released on both sides.
     */
    public void dropClientConnections() {
        for (ConsumerConnection c : List.copyOf(connections.values())) {
            c.close(new RemoteChannelException("Connection to the data server " + c.address()
                    + " was closed by this task executor (" + name + ")"));
        }
    }

    /** Stops the data server and the client; every channel still open is released. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        IllegalStateException cause = new IllegalStateException("The data exchange of task executor " + name
                + " was shut down");
        serverChannel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        for (ConsumerConnection c : List.copyOf(connections.values())) {
            c.close(new RemoteChannelException(cause.getMessage()));
        }
        producers.releaseAll(cause);
        for (RemoteInputChannel in : List.copyOf(consumers.values())) {
            in.channel().release(cause);
        }
        MeterGroup m = meters;
        if (m != null) {
            m.close();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    @Override
    public String toString() {
        return "NettyShuffleEnvironment[" + name + " @ " + address + "]";
    }

    private void checkOpen(ChannelKey key) {
        if (closed) {
            throw new ChannelReleasedException("Channel " + key, new IllegalStateException("the data exchange of task"
                    + " executor " + name + " was shut down"));
        }
    }

    private boolean isReleased(ChannelKey key) {
        Integer upTo = releasedUpTo.get(key.jobId());
        return upTo != null && key.attempt() <= upTo;
    }

    private void failIfReleased(ChannelKey key) {
        if (isReleased(key)) {
            throw new ChannelReleasedException("Channel " + key, new IllegalStateException("attempt "
                    + key.attempt() + " of job " + key.jobId() + " has ended; a new attempt needs new channels"));
        }
    }
}
