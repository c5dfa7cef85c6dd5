package io.sluice.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LatencyProxyTest {

    /** An echo server behind the proxy: a round trip takes at least the configured delay, and bytes pass unchanged. */
    @Test
    void delaysEachRoundTripAndForwardsBytesUnchanged() throws Exception {
        try (ServerSocket echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread server = new Thread(() -> {
                try (Socket s = echo.accept(); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                    in.transferTo(out);
                } catch (Exception ignored) {
                    // closed
                }
            });
            server.setDaemon(true);
            server.start();
            try (LatencyProxy proxy = new LatencyProxy(echo.getLocalPort());
                 Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
                DataInputStream in = new DataInputStream(client.getInputStream());
                OutputStream out = client.getOutputStream();
                byte[] reply = new byte[3];

                out.write(new byte[] {1, 2, 3});
                in.readFully(reply);
                assertThat(reply).containsExactly(1, 2, 3);

                proxy.setDelay(Duration.ofMillis(50));
                long t0 = System.nanoTime();
                out.write(new byte[] {4, 5, 6});
                in.readFully(reply);
                long tookMs = (System.nanoTime() - t0) / 1_000_000;
                assertThat(reply).containsExactly(4, 5, 6);
                assertThat(tookMs).isGreaterThanOrEqualTo(50);
            }
        }
    }
}
