package io.sluice.rpc.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.OpenSsl;
import io.sluice.cluster.membership.HeartbeatResponse;
import io.sluice.cluster.membership.JobManagerSession;
import io.sluice.cluster.membership.RegistrationResponse;
import io.sluice.cluster.membership.TaskExecutorRegistration;
import io.sluice.cluster.membership.TaskExecutorRegistryGateway;
import io.sluice.config.Configuration;
import io.sluice.config.SecurityOptions.TlsProvider;
import io.sluice.security.tls.InternalTls;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.testing.tls.TestCertificates;
import io.sluice.testing.tls.TestCertificates.Authority;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Mutual TLS on the RPC port, with real handshakes over loopback and certificates made by the test:
 * processes with the cluster's certificates talk; a client without TLS, with a certificate of
 * another CA, or trusting the cluster but without a certificate of its own, can neither call an
 * endpoint nor read the job manager's leader session (an {@link Unfenced} method).
 */
class RpcTlsTest {
    private static final Authority CLUSTER = TestCertificates.authority("Sluice test cluster CA");
    private static final Authority OTHER = TestCertificates.authority("Some other CA");
    private static final UUID SESSION = UUID.randomUUID();

    @TempDir
    Path dir;

    private final LoopbackRpcServices services = new LoopbackRpcServices();

    @AfterEach
    void close() throws Exception {
        services.close();
    }

    private RpcService service(InternalTls tls) {
        return services.closeAfterTest(RpcService.builder().bind("127.0.0.1", 0).configuration(new Configuration())
                .timer(services.timer()).tls(tls).start());
    }

    /** A job manager's registry endpoint, fenced by its session; leaderSession() is unfenced. */
    private static RpcService exposeRegistry(RpcService server) {
        server.expose(TaskExecutorRegistryGateway.ENDPOINT, TaskExecutorRegistryGateway.class, new TaskExecutorRegistryGateway() {
            @Override
            public CompletableFuture<JobManagerSession> leaderSession() {
                return CompletableFuture.completedFuture(new JobManagerSession("jm-1", true, SESSION, "leads"));
            }

            @Override
            public CompletableFuture<RegistrationResponse> registerTaskExecutor(TaskExecutorRegistration r,
                                                                                TaskExecutorGateway te) {
                return new CompletableFuture<>();
            }

            @Override
            public CompletableFuture<HeartbeatResponse> heartbeatFromTaskExecutor(String id, UUID registrationId) {
                return new CompletableFuture<>();
            }

            @Override
            public void disconnectTaskExecutor(String id, UUID registrationId, String reason) {
            }
        }, () -> SESSION);
        return server;
    }

    private TaskExecutorRegistryGateway registryOf(RpcService client, RpcService server) {
        return client.remoteGateway(server.address(), TaskExecutorRegistryGateway.ENDPOINT,
                TaskExecutorRegistryGateway.class, null, Map.of());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TlsProvider.class, names = {"JDK", "OPENSSL"})
    void processesWithTheClustersCertificatesCallEachOtherOverMutualTls(TlsProvider provider) throws Exception {
        assertThat(OpenSsl.isAvailable()).as("netty-tcnative loads here: " + OpenSsl.unavailabilityCause()).isTrue();
        InternalTls serverTls = CLUSTER.issue("jobmanager", dir.resolve("jm")).internalTls(provider);
        InternalTls clientTls = CLUSTER.issue("taskmanager", dir.resolve("tm")).internalTls(provider);
        assertThat(serverTls.providerName()).isEqualTo(provider == TlsProvider.JDK ? "JDK" : "OpenSSL");
        RpcService server = exposeRegistry(service(serverTls));
        server.expose("echo", EchoGateway.class, new TestingEchoGateway("jm"), null);
        RpcService client = service(clientTls);

        assertThat(registryOf(client, server).leaderSession().get(10, TimeUnit.SECONDS).leaderSession()).isEqualTo(SESSION);
        EchoGateway echo = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());
        assertThat(echo.echo("over TLS").get(10, TimeUnit.SECONDS)).isEqualTo("jm:over TLS");
        // a gateway passed by reference is called back over a connection the server opens, also TLS
        TestingEchoGateway caller = new TestingEchoGateway("tm"); // exported by reference, held weakly there
        assertThat(echo.callBack(caller, "back").get(10, TimeUnit.SECONDS)).isEqualTo("tm:back");
        java.lang.ref.Reference.reachabilityFence(caller);
        assertThat(serverTls.handshakesCompleted()).isGreaterThanOrEqualTo(2);
        assertThat(clientTls.handshakesCompleted()).isGreaterThanOrEqualTo(2);
        assertThat(serverTls.handshakesFailed() + clientTls.handshakesFailed()).isZero();
    }

    @Test
    void aClientWithoutTlsCannotReadTheLeaderSession() throws Exception {
        InternalTls serverTls = CLUSTER.issue("jobmanager", dir).internalTls(TlsProvider.AUTO);
        RpcService server = exposeRegistry(service(serverTls));
        RpcService plain = service(null);

        assertThatThrownBy(() -> registryOf(plain, server).leaderSession().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RpcConnectionException.class)
                .hasMessageContaining("The connection to " + server.address() + " was lost");
        awaitFailedHandshakes(serverTls);
        assertThat(serverTls.handshakesCompleted()).isZero();
    }

    @Test
    void aClientWithACertificateOfAnotherCaCannotReadTheLeaderSession() throws Exception {
        InternalTls serverTls = CLUSTER.issue("jobmanager", dir.resolve("jm")).internalTls(TlsProvider.AUTO);
        RpcService server = exposeRegistry(service(serverTls));
        // trusts the cluster's CA, so only the server can refuse: its certificate is another CA's
        TestCertificates.PemFiles foreign = OTHER.issue("intruder", dir.resolve("intruder"));
        InternalTls intruderTls = InternalTls.of(new io.sluice.security.tls.TlsIdentity(foreign.identity().key(),
                foreign.identity().chain(), java.util.List.of(CLUSTER.certificate())), TlsProvider.AUTO);
        RpcService intruder = service(intruderTls);

        assertThatThrownBy(() -> registryOf(intruder, server).leaderSession().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RpcConnectionException.class);
        awaitFailedHandshakes(serverTls);
    }

    @Test
    void aClientThatTrustsTheClusterButHasNoCertificateGetsNoAnswer() throws Exception {
        InternalTls serverTls = CLUSTER.issue("jobmanager", dir).internalTls(TlsProvider.AUTO);
        RpcService server = exposeRegistry(service(serverTls));
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(serverTls.identity().trustStore());
        SSLContext noCertificate = SSLContext.getInstance("TLS");
        noCertificate.init(null, trust.getTrustManagers(), null);
        try (SSLSocket socket = (SSLSocket) noCertificate.getSocketFactory().createSocket("127.0.0.1",
                server.address().port())) {
            socket.setSoTimeout(10_000);
            assertThat(answerTo(socket, leaderSessionCall())).as("bytes answered").isEqualTo(-1);
        } catch (IOException refused) {
            // the handshake alert, or a reset once the server closed: either way nothing was answered
        }
        awaitFailedHandshakes(serverTls);
    }

    @Test
    void aPlainTcpCallFrameGetsNoAnswer() throws Exception {
        InternalTls serverTls = CLUSTER.issue("jobmanager", dir).internalTls(TlsProvider.AUTO);
        RpcService server = exposeRegistry(service(serverTls));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", server.address().port()), 5_000);
            socket.setSoTimeout(10_000);
            int answer;
            try {
                answer = answerTo(socket, leaderSessionCall());
            } catch (IOException reset) {
                answer = -1;
            }
            assertThat(answer).as("bytes answered").isEqualTo(-1);
        }
        awaitFailedHandshakes(serverTls);
    }

    /** The server counts the refusal on its event loop, maybe just after the client saw it. */
    private static void awaitFailedHandshakes(InternalTls serverTls) {
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> serverTls.handshakesFailed() == 1);
    }

    /** Writes {@code frame} and reads: the first byte of the answer, or -1 when the server closed the connection. */
    private static int answerTo(Socket socket, byte[] frame) throws IOException {
        socket.getOutputStream().write(frame);
        socket.getOutputStream().flush();
        InputStream in = socket.getInputStream();
        return in.read();
    }

    /** A well-formed call frame of {@code leaderSession()} on the registry endpoint. */
    private static byte[] leaderSessionCall() throws IOException {
        ByteArrayOutputStream args = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(args)) {
            out.writeObject(new Object[0]);
        }
        io.netty.buffer.ByteBuf frame = RpcFrame.encodeCall(io.netty.buffer.ByteBufAllocator.DEFAULT, false, 1,
                TaskExecutorRegistryGateway.ENDPOINT, "leaderSession()", null, args.toByteArray());
        try {
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            return bytes;
        } finally {
            frame.release();
        }
    }
}
