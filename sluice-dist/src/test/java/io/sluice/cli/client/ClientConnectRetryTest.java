package io.sluice.cli.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cli.SluiceCli;
import io.sluice.cli.common.ExitCodes;
import io.sluice.cluster.LocalCluster;
import io.sluice.rest.RestServerConfig;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.rest.local.LocalClusterBackend;
import io.sluice.rest.server.RestServer;
import io.sluice.testing.tls.TestCertificates;
import io.sluice.testing.tls.TestCertificates.Authority;
import io.sluice.util.SystemClock;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client command against an HTTPS cluster whose first connections do not get through the TLS
 * handshake in time (a cold or overloaded job manager): the command tries again, says so, and
 * succeeds once a connection does; when none does it fails with exit code 69, naming the attempts and
 * {@code --connect-timeout}. Regression: one slow handshake failed {@code sluice run} in the secure
 * cluster test ("HTTP connect timed out", exit 69) on a busy CI machine.
 */
class ClientConnectRetryTest {
    @TempDir
    Path dir;

    private LocalCluster cluster;
    private RestServer server;
    private Path caFile;
    private SilentFront front;

    @BeforeEach
    void start() throws IOException {
        Authority ca = TestCertificates.authority("Sluice CLI test CA");
        caFile = ca.writeCertificate(dir);
        cluster = LocalCluster.builder().taskExecutors(1).slotsPerTaskExecutor(1).build();
        server = RestServer.builder(RestServerConfig.defaults().withPort(0).withTls(ca.issue("localhost",
                dir.resolve("tls")).identity()), new LocalClusterBackend(cluster, new LocalJarDirectory(
                        dir.resolve("jars"), cluster.ioExecutor(), SystemClock.INSTANCE), JarRunner.unsupported()))
                .build();
        server.start();
    }

    @AfterEach
    void stop() {
        if (front != null) {
            front.close();
        }
        server.close();
        cluster.close();
    }

    @Test
    void aConnectionWhoseHandshakeTimesOutIsTriedAgainAndTheCommandSucceeds() throws Exception {
        StringWriter warmUp = new StringWriter();
        assertThat(cli(warmUp, "list", "--cluster", "https://127.0.0.1:" + server.port(), "--ca-file",
                caFile.toString())).as("straight to the server: %s", warmUp).isEqualTo(ExitCodes.OK);
        front = new SilentFront(server.port(), 1);
        StringWriter err = new StringWriter();

        int exit = cli(err, "list", "--cluster", front.url(), "--ca-file", caFile.toString(), "--connect-timeout", "2 s");

        assertThat(exit).as("exit code; the command said: %s", err).isEqualTo(ExitCodes.OK);
        assertThat(err.toString()).contains("sluice list: No connection to " + front.url() + "/ within 2 s (attempt 1 of"
                + " 3); trying again");
        assertThat(front.accepted()).as("connections the front accepted").isGreaterThanOrEqualTo(2);
    }

    @Test
    void whenNoAttemptConnectsTheCommandFailsWithExit69NamingTheAttemptsAndTheOption() throws Exception {
        front = new SilentFront(server.port(), Integer.MAX_VALUE);
        StringWriter err = new StringWriter();

        int exit = cli(err, "list", "--cluster", front.url(), "--ca-file", caFile.toString(), "--connect-timeout",
                "300 ms");

        assertThat(exit).as("exit code; the command said: %s", err).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(err.toString()).contains("(attempt 1 of 3); trying again").contains("(attempt 2 of 3); trying again")
                .doesNotContain("attempt 3 of 3")
                .contains("Cannot reach a Sluice cluster at " + front.url() + "/ (no connection within 300 ms in 3"
                        + " attempt(s); on a slow network or an overloaded machine raise --connect-timeout)");
        assertThat(front.accepted()).as("connections the front accepted").isEqualTo(3);
    }

    @Test
    void aConnectTimeoutThatIsNotPositiveIsAUsageError() {
        StringWriter err = new StringWriter();
        assertThat(cli(err, "list", "--cluster", "https://127.0.0.1:" + server.port(), "--ca-file", caFile.toString(),
                "--connect-timeout", "0 s")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("Invalid value for option '--connect-timeout': 0 ms; it must be positive");
    }

    private static int cli(StringWriter err, String... args) {
        var cli = SluiceCli.commandLine();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    /**
     * A loopback port in front of the REST server: it accepts every connection, keeps the first
     * {@code silent} ones open without a byte either way (a TLS handshake on them never completes), and
     * pipes the later ones to the server.
     */
    private static final class SilentFront implements AutoCloseable {
        private final ServerSocket socket;
        private final int serverPort;
        private final int silent;
        private final AtomicInteger accepted = new AtomicInteger();
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();

        SilentFront(int serverPort, int silent) throws IOException {
            this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            this.serverPort = serverPort;
            this.silent = silent;
            Thread acceptor = new Thread(this::acceptAll, "silent-front-accept");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        String url() {
            return "https://127.0.0.1:" + socket.getLocalPort();
        }

        int accepted() {
            return accepted.get();
        }

        private void acceptAll() {
            try {
                while (true) {
                    Socket client = socket.accept();
                    sockets.add(client);
                    if (accepted.incrementAndGet() > silent) {
                        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), serverPort);
                        sockets.add(upstream);
                        pipe(client, upstream);
                        pipe(upstream, client);
                    }
                }
            } catch (IOException e) {
                // closed
            }
        }

        private static void pipe(Socket from, Socket to) {
            Thread t = new Thread(() -> {
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    in.transferTo(out);
                } catch (IOException e) {
                    // either side closed
                }
            }, "silent-front-pipe");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // nothing to do
            }
            for (Socket s : sockets) {
                try {
                    s.close();
                } catch (IOException e) {
                    // nothing to do
                }
            }
        }
    }
}
