package io.sluice.storage.s3.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.storage.s3.testing.TcpFaultProxy.Direction;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The delays of {@link TcpFaultProxy} in front of an echo server: per direction, pipelined, in order. */
class TcpFaultProxyTest {
    private ServerSocket echo;
    private Thread echoThread;

    @BeforeEach
    void startEchoServer() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        echoThread = new Thread(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket s = echo.accept();
                    Thread t = new Thread(() -> copy(s), "echo-connection");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "echo-accept");
        echoThread.setDaemon(true);
        echoThread.start();
    }

    private static void copy(Socket s) {
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException ignored) {
            // the client went away
        }
    }

    @AfterEach
    void stopEchoServer() throws IOException {
        echo.close();
    }

    private TcpFaultProxy proxy() throws IOException {
        return new TcpFaultProxy("127.0.0.1", echo.getLocalPort());
    }

    /** Milliseconds from sending one byte to its echo. */
    private static long roundTripMillis(Socket s, int value) throws IOException {
        long start = System.nanoTime();
        s.getOutputStream().write(value);
        s.getOutputStream().flush();
        assertThat(s.getInputStream().read()).isEqualTo(value);
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private static Socket connect(TcpFaultProxy proxy) throws IOException {
        Socket s = new Socket("127.0.0.1", proxy.port());
        s.setTcpNoDelay(true);
        s.setSoTimeout(10_000);
        return s;
    }

    @Test
    void aConnectionAcceptedWhileTheProxyStartsRefusingDoesNotOutliveTheRefusal() throws Exception {
        try (TcpFaultProxy proxy = proxy()) {
            java.util.concurrent.CountDownLatch accepted = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch refused = new java.util.concurrent.CountDownLatch(1);
            proxy.afterAccept = () -> {
                accepted.countDown();
                try {
                    refused.await(); // refuseConnections() runs (and drops the open connections) right here
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            try (Socket s = new Socket("127.0.0.1", proxy.port())) {
                assertThat(accepted.await(10, TimeUnit.SECONDS)).isTrue();
                proxy.refuseConnections();
                refused.countDown();
                s.setSoTimeout(10_000);
                s.getOutputStream().write(7);
                s.getOutputStream().flush();
                int echoed;
                try {
                    echoed = s.getInputStream().read();
                } catch (IOException reset) {
                    echoed = -1;
                }
                assertThat(echoed).as("a byte went through a connection accepted as the proxy began refusing")
                        .isEqualTo(-1);
            }
        }
    }

    @Test
    void eachDirectionHasItsOwnDelay() throws Exception {
        try (TcpFaultProxy proxy = proxy(); Socket s = connect(proxy)) {
            long plain = roundTripMillis(s, 1);
            proxy.setDelay(Direction.TO_TARGET, Duration.ofMillis(300), Duration.ZERO);
            long oneWay = roundTripMillis(s, 2);
            proxy.setDelay(Direction.TO_CLIENT, Duration.ofMillis(200), Duration.ZERO);
            long both = roundTripMillis(s, 3);
            System.out.printf("TcpFaultProxyTest: round trip %d ms plain, %d ms with 300 ms to the target, %d ms with"
                    + " 200 ms back as well%n", plain, oneWay, both);
            assertThat(oneWay).isGreaterThanOrEqualTo(300);
            assertThat(both).isGreaterThanOrEqualTo(500);
            proxy.heal();
            long healed = roundTripMillis(s, 4);
            assertThat(healed).as("no delay after heal (ms)").isLessThan(300);
        }
    }

    @Test
    void bytesInFlightArePipelinedNotSerializedByTheDelay() throws Exception {
        try (TcpFaultProxy proxy = proxy(); Socket s = connect(proxy)) {
            proxy.setLatency(Duration.ofMillis(100));
            int chunks = 20;
            long start = System.nanoTime();
            // 20 writes 10 ms apart, each its own chunk at the proxy; serialized they would take over 20 x 100 ms
            ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
            AtomicInteger next = new AtomicInteger();
            writer.scheduleAtFixedRate(() -> {
                int i = next.getAndIncrement();
                if (i < chunks) {
                    try {
                        s.getOutputStream().write(i);
                        s.getOutputStream().flush();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }, 0, 10, TimeUnit.MILLISECONDS);
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] got = new byte[chunks];
            in.readFully(got);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            writer.shutdownNow();
            System.out.println("TcpFaultProxyTest: " + chunks + " chunks echoed through 100 ms each way in " + millis + " ms");
            for (int i = 0; i < chunks; i++) {
                assertThat(got[i]).as("byte " + i + " in order").isEqualTo((byte) i);
            }
            assertThat(millis).as("at least one round trip").isGreaterThanOrEqualTo(200);
            assertThat(millis).as("far below 20 serialized round trips of 200 ms").isLessThan(2_000);
        }
    }

    @Test
    void jitterNeverReordersBytes() throws Exception {
        try (TcpFaultProxy proxy = proxy(); Socket s = connect(proxy)) {
            proxy.setDelay(Direction.TO_TARGET, Duration.ofMillis(5), Duration.ofMillis(40));
            proxy.setDelay(Direction.TO_CLIENT, Duration.ofMillis(5), Duration.ofMillis(40));
            int n = 300;
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < n; i++) {
                        s.getOutputStream().write(i & 0xff);
                        s.getOutputStream().flush();
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            writer.start();
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] got = new byte[n];
            in.readFully(got);
            writer.join();
            for (int i = 0; i < n; i++) {
                assertThat(got[i] & 0xff).as("byte " + i).isEqualTo(i & 0xff);
            }
            long rtt = roundTripMillis(s, 7);
            assertThat(rtt).as("at least the fixed part both ways (ms)").isGreaterThanOrEqualTo(10);
        }
    }

    @Test
    void listensOnTheGivenAddressWithTheGivenPort() throws Exception {
        InetAddress other = InetAddress.getByName("127.0.0.2");
        try (ServerSocket free = new ServerSocket(0, 1, other)) {
            int port = free.getLocalPort();
            free.close();
            try (TcpFaultProxy proxy = new TcpFaultProxy(new InetSocketAddress("127.0.0.1", echo.getLocalPort()), other,
                    port, 4);
                 Socket s = new Socket(other, port)) {
                s.setSoTimeout(10_000);
                assertThat(proxy.port()).isEqualTo(port);
                assertThat(proxy.httpEndpoint()).isEqualTo("http://127.0.0.2:" + port);
                assertThat(roundTripMillis(s, 9)).isGreaterThanOrEqualTo(0);
            }
        }
    }

    @Test
    void negativeDelaysAreRejected() throws Exception {
        try (TcpFaultProxy proxy = proxy()) {
            assertThatThrownBy(() -> proxy.setDelay(Direction.TO_CLIENT, Duration.ofMillis(-1), Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TO_CLIENT");
            assertThatThrownBy(() -> proxy.setDelay(Direction.TO_TARGET, Duration.ZERO, Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jitter");
        }
    }
}
