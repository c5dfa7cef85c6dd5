package io.sluice.storage.s3.testing;

import io.sluice.concurrent.DaemonThreadFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy for tests and benchmarks that forwards a local port ({@code 127.0.0.1:}{@link #port()},
 * or another local address) to a target (for example an S3 server) and injects network faults on
 * command, while it runs:
 *
 * <ul>
 *   <li>{@link #refuseConnections()}: closes the listening socket, so that new connections get
 *       {@code Connection refused} from the operating system (as from a dead endpoint); open
 *       connections are dropped too. {@link #heal()} listens again on the same port.</li>
 *   <li>{@link #dropConnections()}: closes every open connection once (clients see a reset or
 *       end of stream); new connections are accepted.</li>
 *   <li>{@link #setDelay(Direction, Duration, Duration)}: forwards every chunk of bytes in one
 *       direction a fixed delay (plus a random jitter) after it arrived, as a link with that one-way
 *       latency would: bytes in flight are pipelined (the delay does not limit the throughput), their
 *       order is kept (a jittered chunk never overtakes an earlier one). {@link #setLatency(Duration)}
 *       sets the same delay in both directions (a request/response exchange pays it twice).</li>
 *   <li>{@link #stall()}: accepts connections but forwards nothing (clients hit their read or
 *       attempt timeouts) until {@link #heal()}.</li>
 * </ul>
 *
 * <p>Bounded: at most {@code maxConnections} connections at a time (more are closed at once), each
 * served by four daemon threads of a bounded pool (a reader and a writer per direction, with at most
 * {@value #LINE_CHUNKS} chunks in flight between them), plus one daemon acceptor thread.
 * {@link #close()} stops everything and closes every socket. Thread-safe.
 */
public final class TcpFaultProxy implements AutoCloseable {
    private static final int CHUNK = 16 * 1024;
    /** Chunks read but not yet forwarded, per direction of a connection (back-pressure beyond that). */
    static final int LINE_CHUNKS = 64;

    /** A direction of the proxied connections. */
    public enum Direction {
        /** bytes from the client (who connected to the proxy) to the target */
        TO_TARGET,
        /** bytes from the target back to the client */
        TO_CLIENT
    }

    /** How long a chunk waits in one direction: {@code nanos} plus a uniform random part below {@code jitterNanos}. */
    private record Delay(long nanos, long jitterNanos) {
        static final Delay NONE = new Delay(0, 0);

        long draw() {
            return nanos + (jitterNanos > 0 ? java.util.concurrent.ThreadLocalRandom.current().nextLong(jitterNanos) : 0);
        }
    }

    /** A chunk read from one socket, due to be written to the other at {@code dueNanos}; {@code bytes} null: end of stream. */
    private record Chunk(byte[] bytes, long dueNanos) {
    }

    private final InetSocketAddress target;
    private final int maxConnections;
    private final ExecutorService pumps;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final Object lock = new Object();
    private final AtomicLong accepted = new AtomicLong();
    private final int port;
    private final InetAddress listenAddress;

    private volatile Delay toTarget = Delay.NONE;
    private volatile Delay toClient = Delay.NONE;
    private volatile boolean stalled;
    /** Runs on the acceptor thread between accepting a connection and serving it: a seam for this class's tests. */
    volatile Runnable afterAccept = () -> { };
    // Guarded by lock.
    private ServerSocket server;
    private Thread acceptor;
    private boolean refusing;
    private boolean closed;

    /** A proxy on a free local port to {@code targetHost:targetPort}, at most 64 connections. */
    public TcpFaultProxy(String targetHost, int targetPort) throws IOException {
        this(new InetSocketAddress(targetHost, targetPort), 0, 64);
    }

    /**
     * A proxy on {@code 127.0.0.1:listenPort} to {@code target}.
     *
     * @param listenPort     local port, or 0 for a free one (kept across refuse/heal)
     * @param maxConnections connections served at once; more are closed right after accept
     */
    public TcpFaultProxy(InetSocketAddress target, int listenPort, int maxConnections) throws IOException {
        this(target, InetAddress.getLoopbackAddress(), listenPort, maxConnections);
    }

    /**
     * A proxy on {@code listenAddress:listenPort} to {@code target}: for example on another loopback
     * address ({@code 127.0.0.2}) with the same port as the target, so that a process that advertises
     * that address (and its own port) is reached through the proxy.
     *
     * @param listenPort     local port, or 0 for a free one (kept across refuse/heal)
     * @param maxConnections connections served at once; more are closed right after accept
     */
    public TcpFaultProxy(InetSocketAddress target, InetAddress listenAddress, int listenPort, int maxConnections)
            throws IOException {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1, got " + maxConnections);
        }
        this.target = target;
        this.listenAddress = listenAddress;
        this.maxConnections = maxConnections;
        this.pumps = new ThreadPoolExecutor(0, 4 * maxConnections, 10, TimeUnit.SECONDS, new SynchronousQueue<>(),
                DaemonThreadFactory.numbered("tcp-fault-proxy-pump-"));
        synchronized (lock) {
            this.server = listen(listenPort);
            this.port = server.getLocalPort();
            startAcceptor();
        }
    }

    /** The local port clients connect to. */
    public int port() {
        return port;
    }

    /** {@code http://<listen address>:<port>}, handy as an endpoint URL. */
    public String httpEndpoint() {
        return "http://" + listenAddress.getHostAddress() + ":" + port;
    }

    /** Connections accepted so far (also those closed at once because the proxy was full). */
    public long acceptedConnections() {
        return accepted.get();
    }

    /** Connections open now. */
    public int openConnections() {
        return connections.size();
    }

    /** Refuses new connections (the listening socket is closed) and drops the open ones, until {@link #heal()}. */
    public void refuseConnections() {
        synchronized (lock) {
            refusing = true;
            closeQuietly(server);
            server = null;
        }
        dropConnections();
    }

    /** Closes every open connection now; later connections are served normally. */
    public void dropConnections() {
        for (Connection c : connections) {
            c.close();
        }
    }

    /**
     * Forwards each chunk {@code delay} after it arrived, in both directions (pipelined, in order);
     * {@link Duration#ZERO} removes it. The same as {@link #setDelay} of both directions without jitter.
     */
    public void setLatency(Duration delay) {
        setDelay(Direction.TO_TARGET, delay, Duration.ZERO);
        setDelay(Direction.TO_CLIENT, delay, Duration.ZERO);
    }

    /**
     * Forwards each chunk in {@code direction} {@code delay} plus a uniform random part below
     * {@code jitter} after it arrived (never before an earlier chunk of the same connection and
     * direction), on open connections too; {@code Duration.ZERO} for both removes the delay. Chunks
     * read before a change keep the delay they were given.
     */
    public void setDelay(Direction direction, Duration delay, Duration jitter) {
        if (delay.isNegative() || jitter.isNegative()) {
            throw new IllegalArgumentException("Delay and jitter must not be negative, got " + delay + " and " + jitter
                    + " for " + direction);
        }
        Delay d = new Delay(delay.toNanos(), jitter.toNanos());
        if (direction == Direction.TO_TARGET) {
            toTarget = d;
        } else {
            toClient = d;
        }
    }

    /** Accepts connections but forwards no bytes until {@link #heal()}. */
    public void stall() {
        stalled = true;
    }

    /** Removes every fault: listens again (on the same port), forwards again, no added latency. */
    public void heal() throws IOException {
        toTarget = Delay.NONE;
        toClient = Delay.NONE;
        synchronized (lock) {
            stalled = false;
            lock.notifyAll();
            if (refusing && !closed) {
                server = listen(port);
                refusing = false;
                startAcceptor();
            }
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            closeQuietly(server);
            server = null;
            lock.notifyAll();
        }
        dropConnections();
        pumps.shutdownNow();
    }

    private ServerSocket listen(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(listenAddress, port), 50);
        return s;
    }

    // Called with lock held.
    private void startAcceptor() {
        ServerSocket s = server;
        acceptor = DaemonThreadFactory.named("tcp-fault-proxy-accept-" + port).newThread(() -> acceptLoop(s));
        acceptor.start();
    }

    private void acceptLoop(ServerSocket s) {
        while (!s.isClosed()) {
            Socket client;
            try {
                client = s.accept();
            } catch (IOException e) {
                return; // closed: refusing or shut down
            }
            accepted.incrementAndGet();
            afterAccept.run();
            if (connections.size() >= maxConnections) {
                closeQuietly(client);
                continue;
            }
            Connection c = new Connection(client);
            connections.add(c);
            if (s.isClosed()) {
                // Accepted just before refuseConnections()/close() closed this socket, but added after they
                // dropped the open connections: it must not outlive the refusal (a client would go on through it).
                c.close();
                return;
            }
            try {
                pumps.execute(c::start);
            } catch (RejectedExecutionException e) {
                c.close();
            }
        }
    }

    /**
     * One proxied connection: client socket, upstream socket, and per direction a reader thread that
     * stamps each chunk with its due time and a writer thread that forwards it then.
     */
    private final class Connection {
        private final Socket client;
        private volatile Socket upstream;
        private volatile boolean done;
        private final AtomicInteger directionsEnded = new AtomicInteger();

        Connection(Socket client) {
            this.client = client;
        }

        void start() {
            try {
                awaitNotStalled();
                Socket up = new Socket();
                upstream = up;
                if (done) {
                    closeQuietly(up);
                    return;
                }
                up.connect(target, 10_000);
                client.setTcpNoDelay(true);
                up.setTcpNoDelay(true);
                BlockingQueue<Chunk> toUpstream = new ArrayBlockingQueue<>(LINE_CHUNKS);
                BlockingQueue<Chunk> toClientLine = new ArrayBlockingQueue<>(LINE_CHUNKS);
                try {
                    pumps.execute(() -> deliver(toUpstream, up));
                    pumps.execute(() -> deliver(toClientLine, client));
                    pumps.execute(() -> read(up, toClientLine, Direction.TO_CLIENT));
                } catch (RejectedExecutionException e) {
                    close();
                    return;
                }
                read(client, toUpstream, Direction.TO_TARGET);
            } catch (IOException | InterruptedException e) {
                close();
            }
        }

        /** Reads chunks from {@code from} and queues them with their due time; the end of stream too. */
        private void read(Socket from, BlockingQueue<Chunk> line, Direction direction) {
            byte[] buf = new byte[CHUNK];
            long lastDue = Long.MIN_VALUE;
            try {
                InputStream in = from.getInputStream();
                int n;
                while (!done && (n = in.read(buf)) >= 0) {
                    awaitNotStalled();
                    long now = System.nanoTime();
                    long due = now + (direction == Direction.TO_TARGET ? toTarget : toClient).draw();
                    // never before an earlier chunk (the difference form is overflow-safe)
                    if (lastDue != Long.MIN_VALUE && due - lastDue < 0) {
                        due = lastDue;
                    }
                    lastDue = due;
                    offer(line, new Chunk(java.util.Arrays.copyOf(buf, n), due));
                }
                offer(line, new Chunk(null, lastDue == Long.MIN_VALUE ? System.nanoTime() : lastDue));
            } catch (IOException | InterruptedException e) {
                close();
            }
        }

        private void offer(BlockingQueue<Chunk> line, Chunk chunk) throws InterruptedException {
            while (!done && !line.offer(chunk, 100, TimeUnit.MILLISECONDS)) {
                // the writer is behind (back-pressure); re-check done
            }
        }

        /** Writes each queued chunk to {@code to} at its due time; at the end of stream half-closes it. */
        private void deliver(BlockingQueue<Chunk> line, Socket to) {
            try {
                OutputStream out = to.getOutputStream();
                while (!done) {
                    Chunk c = line.poll(100, TimeUnit.MILLISECONDS);
                    if (c == null) {
                        continue;
                    }
                    long wait;
                    while (!done && (wait = c.dueNanos() - System.nanoTime()) > 0) {
                        LockSupport.parkNanos(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(100)));
                    }
                    awaitNotStalled();
                    if (done) {
                        break;
                    }
                    if (c.bytes() == null) {
                        // Half-close: pass the end of stream on, keep the other direction running.
                        try {
                            to.shutdownOutput();
                        } catch (SocketException ignored) {
                            close();
                        }
                        break;
                    }
                    out.write(c.bytes());
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                close();
            }
            if (directionsEnded.incrementAndGet() == 2) {
                close(); // both directions reached their end of stream
            }
        }

        private void awaitNotStalled() throws InterruptedException {
            if (!stalled) {
                return;
            }
            synchronized (lock) {
                while (stalled && !done && !closed) {
                    lock.wait(100);
                }
            }
        }

        void close() {
            done = true;
            connections.remove(this);
            closeQuietly(client);
            Socket up = upstream;
            if (up != null) {
                closeQuietly(up);
            }
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // closing on a fault path
        }
    }
}
