package io.sluice.storage.s3.testing;

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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy for tests and benchmarks that forwards a local port ({@code 127.0.0.1:}{@link #port()})
 * to a target (for example an S3 server) and injects network faults on command, while it runs:
 *
 * <ul>
 *   <li>{@link #refuseConnections()}: closes the listening socket, so that new connections get
 *       {@code Connection refused} from the operating system (as from a dead endpoint); open
 *       connections are dropped too. {@link #heal()} listens again on the same port.</li>
 *   <li>{@link #dropConnections()}: closes every open connection once (clients see a reset or
 *       end of stream); new connections are accepted.</li>
 *   <li>{@link #setLatency(Duration)}: waits that long before forwarding each chunk of bytes, in
 *       both directions (a request/response exchange pays it at least twice).</li>
 *   <li>{@link #stall()}: accepts connections but forwards nothing (clients hit their read or
 *       attempt timeouts) until {@link #heal()}.</li>
 * </ul>
 *
 * <p>Bounded: at most {@code maxConnections} connections at a time (more are closed at once), each
 * served by two daemon threads of a bounded pool, plus one daemon acceptor thread.
 * {@link #close()} stops everything and closes every socket. Thread-safe.
 */
public final class TcpFaultProxy implements AutoCloseable {
    private static final int CHUNK = 16 * 1024;

    private final InetSocketAddress target;
    private final int maxConnections;
    private final ExecutorService pumps;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final Object lock = new Object();
    private final AtomicLong accepted = new AtomicLong();
    private final int port;

    private volatile long latencyNanos;
    private volatile boolean stalled;
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
     * @param listenPort     local port, or 0 for a free one (kept across refuse/heal)
     * @param maxConnections connections served at once; more are closed right after accept
     */
    public TcpFaultProxy(InetSocketAddress target, int listenPort, int maxConnections) throws IOException {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1, got " + maxConnections);
        }
        this.target = target;
        this.maxConnections = maxConnections;
        AtomicInteger n = new AtomicInteger();
        this.pumps = new ThreadPoolExecutor(0, 2 * maxConnections, 10, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "tcp-fault-proxy-pump-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
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

    /** {@code http://127.0.0.1:<port>}, handy as an endpoint URL. */
    public String httpEndpoint() {
        return "http://127.0.0.1:" + port;
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

    /** Adds {@code delay} before forwarding each chunk, in both directions; {@link Duration#ZERO} removes it. */
    public void setLatency(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("Latency must not be negative, got " + delay);
        }
        latencyNanos = delay.toNanos();
    }

    /** Accepts connections but forwards no bytes until {@link #heal()}. */
    public void stall() {
        stalled = true;
    }

    /** Removes every fault: listens again (on the same port), forwards again, no added latency. */
    public void heal() throws IOException {
        latencyNanos = 0;
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

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        return s;
    }

    // Called with lock held.
    private void startAcceptor() {
        ServerSocket s = server;
        acceptor = new Thread(() -> acceptLoop(s), "tcp-fault-proxy-accept-" + port);
        acceptor.setDaemon(true);
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
            if (connections.size() >= maxConnections) {
                closeQuietly(client);
                continue;
            }
            Connection c = new Connection(client);
            connections.add(c);
            try {
                pumps.execute(c::start);
            } catch (RejectedExecutionException e) {
                c.close();
            }
        }
    }

    /** One proxied connection: client socket, upstream socket, one pump thread per direction. */
    private final class Connection {
        private final Socket client;
        private volatile Socket upstream;
        private volatile boolean done;
        private final AtomicInteger pumpsEnded = new AtomicInteger();

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
                try {
                    pumps.execute(() -> pump(up, client));
                } catch (RejectedExecutionException e) {
                    close();
                    return;
                }
                pump(client, up);
            } catch (IOException | InterruptedException e) {
                close();
            }
        }

        private void pump(Socket from, Socket to) {
            byte[] buf = new byte[CHUNK];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while (!done && (n = in.read(buf)) >= 0) {
                    awaitNotStalled();
                    long delay = latencyNanos;
                    if (delay > 0) {
                        TimeUnit.NANOSECONDS.sleep(delay);
                    }
                    if (done) {
                        break;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
                // Half-close: pass the end of stream on, keep the other direction running.
                if (!done) {
                    try {
                        to.shutdownOutput();
                    } catch (SocketException ignored) {
                        close();
                    }
                }
            } catch (IOException | InterruptedException e) {
                close();
            }
            if (pumpsEnded.incrementAndGet() == 2) {
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
