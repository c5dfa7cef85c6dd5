package io.sluice.compare;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy on loopback that delays every chunk sent from client to server by a settable amount,
 * so that each request/response round trip (a ZooKeeper operation, say) takes that much longer.
 * The delay is the fault being injected, so it is a plain sleep on the forwarding thread.
 *
 * <p>Thread rules: {@link #setDelay} from any thread; it applies to chunks forwarded after the call.
 */
public final class LatencyProxy implements AutoCloseable {
    private final int targetPort;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile long delayNanos;
    private volatile boolean closed;

    public LatencyProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::accept, "latency-proxy-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    public void setDelay(Duration delay) {
        delayNanos = delay.toNanos();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream, true);
                pump(upstream, client, false);
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("latency proxy to port " + targetPort + ": " + e.getMessage());
                }
            }
        }
    }

    private void pump(Socket from, Socket to, boolean delayed) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    long d = delayed ? delayNanos : 0;
                    if (d > 0) {
                        TimeUnit.NANOSECONDS.sleep(d);
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException ignored) {
                // connection closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "latency-proxy-" + (delayed ? "up" : "down"));
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        sockets.forEach(LatencyProxy::closeQuietly);
    }
}
