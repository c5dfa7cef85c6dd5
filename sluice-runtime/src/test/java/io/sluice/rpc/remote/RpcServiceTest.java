package io.sluice.rpc.remote;

import static io.sluice.rpc.remote.RpcFutures.WAIT_SECONDS;
import static io.sluice.rpc.remote.RpcFutures.failure;
import static io.sluice.rpc.remote.RpcFutures.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sluice.api.errors.UnrecoverableJobException;
import io.sluice.config.Configuration;
import io.sluice.config.RpcOptions;
import io.sluice.job.JobResult;
import io.sluice.testutil.ManualScheduledExecutorService;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RPC layer over loopback TCP: two services in this JVM, one exposing a {@link TestingEchoGateway}
 * and one calling it through proxies. Timeouts run on a manual scheduler; nothing sleeps.
 */
class RpcServiceTest {
    private final LoopbackRpcServices services = new LoopbackRpcServices();
    private final ManualScheduledExecutorService timer = services.timer();

    @AfterEach
    void closeAll() throws Exception {
        services.close();
    }

    private RpcService service(Configuration conf) {
        return services.start(conf);
    }

    private RpcService service() {
        return service(new Configuration());
    }

    @Test
    void requestRoundTripAndConstants() throws Exception {
        RpcService server = service();
        RpcService client = service();
        server.expose("echo", EchoGateway.class, new TestingEchoGateway("b"), null);
        EchoGateway remote = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of("name", "b"));

        assertThat(get(remote.echo("hello"))).isEqualTo("b:hello");
        assertThat(get(remote.length(new byte[1234]))).isEqualTo(1234);
        assertThat(remote.name()).isEqualTo("b");
        assertThat(remote).isEqualTo(client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of()));
        assertThat(remote.toString()).contains("echo").contains(server.address().toString());
        assertThat(timer.numScheduled()).as("timeouts of answered requests are cancelled").isZero();
    }

    @Test
    void anAdvertisedHostIsWhatReferencesCarryAndAnOccupiedPortIsNamed() throws Exception {
        RpcService server = RpcService.builder().bind("0.0.0.0", 0).advertisedHost("localhost").timer(timer).start();
        services.closeAfterTest(server);
        assertThat(server.address().host()).isEqualTo("localhost");
        RpcService client = service();
        TestingEchoGateway impl = new TestingEchoGateway("b");
        server.expose("echo", EchoGateway.class, impl, null);
        EchoGateway remote = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());
        assertThat(get(remote.echo("x"))).isEqualTo("b:x");
        // A reference to the server's own object, passed to it, is that object (matched by the advertised address).
        EchoGateway own = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());
        assertThat(get(remote.callBack(own, "self"))).isEqualTo("b:self");

        assertThatThrownBy(() -> RpcService.builder().bind("127.0.0.1", client.address().port()).start())
                .isInstanceOf(RpcException.class).hasMessageContaining("Cannot listen for RPC on 127.0.0.1:"
                        + client.address().port()).hasMessageContaining("0 picks a free one");
    }

    @Test
    void aMissingConstantNamesTheGetter() {
        RpcService client = service();
        EchoGateway remote = client.remoteGateway(new RpcAddress("127.0.0.1", 1), "echo", EchoGateway.class, null, Map.of());
        assertThatThrownBy(remote::name).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("EchoGateway.name()").hasMessageContaining("constants");
    }

    @Test
    void oneWayMessagesArriveInCallOrderBeforeALaterAnswer() throws Exception {
        RpcService server = service();
        RpcService client = service();
        TestingEchoGateway impl = new TestingEchoGateway("b");
        server.expose("echo", EchoGateway.class, impl, null);
        EchoGateway remote = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());

        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            remote.record("m" + i);
            sent.add("m" + i);
        }
        get(remote.echo("after"));
        assertThat(impl.recorded).containsExactlyElementsOf(sent);
    }

    @Test
    void aRequestWithoutAnswerTimesOutNamingMethodTargetAndTimeout() throws Exception {
        RpcService server = service();
        RpcService client = service(new Configuration().set(RpcOptions.TIMEOUT, Duration.ofSeconds(3)));
        TestingEchoGateway impl = new TestingEchoGateway("b");
        server.expose("echo", EchoGateway.class, impl, null);
        EchoGateway remote = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());

        CompletableFuture<String> pending = remote.never();
        await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> impl.neverAnswered.size() == 1);
        timer.advance(2999, TimeUnit.MILLISECONDS);
        assertThat(pending).isNotDone();
        timer.advance(1, TimeUnit.MILLISECONDS);
        Throwable error = failure(pending);
        assertThat(error).isInstanceOf(RpcTimeoutException.class)
                .hasMessageContaining("EchoGateway.never").hasMessageContaining("'echo' at " + server.address())
                .hasMessageContaining("3000 ms").hasMessageContaining("rpc.timeout");

        // Nothing at all came from the peer meanwhile: the connection is presumed dead and replaced.
        assertThat(client.currentConnection(server.address())).isNull();
        impl.neverAnswered.get(0).complete("late"); // dropped
        assertThat(get(remote.echo("x"))).isEqualTo("b:x");
        assertThat(client.currentConnection(server.address())).isNotNull();
    }

    @Test
    void aTimeoutKeepsAConnectionThatCarriedOtherAnswersMeanwhile() throws Exception {
        RpcService server = service();
        RpcService client = service(new Configuration().set(RpcOptions.TIMEOUT, Duration.ofSeconds(3)));
        TestingEchoGateway impl = new TestingEchoGateway("b");
        server.expose("echo", EchoGateway.class, impl, null);
        EchoGateway remote = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());

        CompletableFuture<String> pending = remote.never();
        await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> impl.neverAnswered.size() == 1);
        RpcConnection connection = client.currentConnection(server.address());
        assertThat(get(remote.echo("alive"))).isEqualTo("b:alive");
        timer.advance(3, TimeUnit.SECONDS);
        assertThat(failure(pending)).isInstanceOf(RpcTimeoutException.class);
        assertThat(client.currentConnection(server.address())).as("the peer answered other calls: kept").isSameAs(connection);

        impl.neverAnswered.get(0).complete("late"); // dropped by the client
        assertThat(get(remote.echo("x"))).isEqualTo("b:x");
        assertThat(client.currentConnection(server.address())).isSameAs(connection);
    }

    @Test
    void anUnreachablePeerFailsFastAndIsTriedAgainOnTheNextCall() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        RpcService client = service();
        RpcAddress nobody = new RpcAddress("127.0.0.1", port);
        EchoGateway remote = client.remoteGateway(nobody, "echo", EchoGateway.class, null, Map.of());

        Throwable error = failure(remote.echo("x"));
        assertThat(error).isInstanceOf(RpcConnectionException.class)
                .hasMessageContaining("EchoGateway.echo")
                .hasMessageContaining("Cannot reach 127.0.0.1:" + port + " (Connection refused)");
        remote.record("lost"); // logged, never thrown
        // (a call made while a connect attempt is under way shares its outcome: wait for that one to fail)
        await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> client.currentConnection(nobody) == null);

        // Once something listens there, the next call connects.
        RpcService late = RpcService.builder().bind("127.0.0.1", port).timer(timer).start();
        services.closeAfterTest(late);
        late.expose("echo", EchoGateway.class, new TestingEchoGateway("late"), null);
        assertThat(get(remote.echo("x"))).isEqualTo("late:x");
    }

    @Test
    void aLostConnectionFailsTheCallsInFlightAndTheNextCallConnectsAgain() throws Exception {
        RpcService client = service();
        RpcService server = RpcService.builder().bind("127.0.0.1", 0).timer(timer).start();
        TestingEchoGateway impl = new TestingEchoGateway("first");
        server.expose("echo", EchoGateway.class, impl, null);
        RpcAddress address = server.address();
        EchoGateway remote = client.remoteGateway(address, "echo", EchoGateway.class, null, Map.of());
        CompletableFuture<String> inFlight = remote.never();
        await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> impl.neverAnswered.size() == 1);

        server.close(); // the peer process goes away
        assertThat(failure(inFlight)).isInstanceOf(RpcConnectionException.class)
                .hasMessageContaining("EchoGateway.never").hasMessageContaining("connection to " + address + " was lost");

        RpcService restarted = RpcService.builder().bind("127.0.0.1", address.port()).timer(timer).start();
        services.closeAfterTest(restarted);
        restarted.expose("echo", EchoGateway.class, new TestingEchoGateway("second"), null);
        assertThat(get(remote.echo("x"))).isEqualTo("second:x");
    }

    @Test
    void anOversizedRequestFailsOnTheSender() {
        RpcService server = service();
        RpcService client = service(new Configuration().set(RpcOptions.MAX_MESSAGE_SIZE, 65536));
        server.expose("echo", EchoGateway.class, new TestingEchoGateway("b"), null);
        EchoGateway remote = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());

        Throwable error = failure(remote.length(new byte[100_000]));
        assertThat(error).isInstanceOf(RpcMessageTooLargeException.class)
                .hasMessageContaining("EchoGateway.length").hasMessageContaining("65536 bytes")
                .hasMessageContaining("rpc.max-message-size").hasMessageMatching("(?s).*is 100\\d\\d\\d bytes.*");
    }

    @Test
    void theReceiverRefusesAFrameAboveItsLimitAndKeepsTheConnection() throws Exception {
        RpcService server = service(new Configuration().set(RpcOptions.MAX_MESSAGE_SIZE, 65536));
        RpcService client = service();
        TestingEchoGateway impl = new TestingEchoGateway("b");
        server.expose("echo", EchoGateway.class, impl, null);
        EchoGateway remote = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());

        Throwable error = failure(remote.length(new byte[300_000]));
        assertThat(error).isInstanceOf(RpcMessageTooLargeException.class)
                .hasMessageContaining("EchoGateway.length").hasMessageContaining(server.address().toString())
                .hasMessageContaining("65536 bytes").hasMessageContaining("rpc.max-message-size");
        // The same connection goes on: a one-way message and a request after the skipped frame.
        remote.record("after");
        assertThat(get(remote.echo("x"))).isEqualTo("b:x");
        assertThat(impl.recorded).containsExactly("after");
    }

    @Test
    void anOversizedAnswerFailsTheCallOnBothSidesLimits() throws Exception {
        RpcService server = service(new Configuration().set(RpcOptions.MAX_MESSAGE_SIZE, 65536));
        RpcService client = service(new Configuration().set(RpcOptions.MAX_MESSAGE_SIZE, 65536 * 2));
        server.expose("echo", EchoGateway.class, new TestingEchoGateway("b"), null);
        EchoGateway remote = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());

        // Above the sender's limit: the server sends a failure instead.
        Throwable bySender = failure(remote.bytes(100_000));
        assertThat(bySender).isInstanceOf(RpcMessageTooLargeException.class)
                .hasMessageContaining("EchoGateway.bytes").hasMessageContaining("65536 bytes")
                .hasMessageContaining("rpc.max-message-size");
        assertThat(get(remote.echo("x"))).isEqualTo("b:x");

        // Above the receiver's limit only: the client skips the frame and fails the call.
        RpcService bigServer = service(new Configuration().set(RpcOptions.MAX_MESSAGE_SIZE, 1 << 20));
        bigServer.expose("echo", EchoGateway.class, new TestingEchoGateway("big"), null);
        EchoGateway big = client.remoteGateway(bigServer.address(), "echo", EchoGateway.class, null, Map.of());
        Throwable byReceiver = failure(big.bytes(500_000));
        assertThat(byReceiver).isInstanceOf(RpcMessageTooLargeException.class)
                .hasMessageContaining("The answer to EchoGateway.bytes").hasMessageContaining("131072 bytes")
                .hasMessageContaining("rpc.max-message-size");
        assertThat(get(big.echo("y"))).isEqualTo("big:y");
    }

    @Test
    void aFencedEndpointRefusesCallsForAnotherLeaderSession() throws Exception {
        RpcService server = service();
        RpcService client = service();
        UUID leader = UUID.randomUUID();
        AtomicReference<UUID> current = new AtomicReference<>(leader);
        server.expose("dispatcher", EchoGateway.class, new TestingEchoGateway("b"), current::get);

        EchoGateway right = client.remoteGateway(server.address(), "dispatcher", EchoGateway.class, leader, Map.of());
        assertThat(get(right.echo("x"))).isEqualTo("b:x");

        UUID stale = UUID.randomUUID();
        EchoGateway wrong = client.remoteGateway(server.address(), "dispatcher", EchoGateway.class, stale, Map.of());
        assertThat(failure(wrong.echo("x"))).isInstanceOf(FencingTokenMismatchException.class)
                .hasMessageContaining("'dispatcher'").hasMessageContaining(stale.toString())
                .hasMessageContaining(leader.toString());

        EchoGateway unfenced = client.remoteGateway(server.address(), "dispatcher", EchoGateway.class, null, Map.of());
        assertThat(failure(unfenced.echo("x"))).isInstanceOf(FencingTokenMismatchException.class);

        current.set(null); // leadership lost
        assertThat(failure(right.echo("x"))).isInstanceOf(FencingTokenMismatchException.class)
                .hasMessageContaining("does not lead");
    }

    @Test
    void readingIsRestrictedToSluiceAndBasicJdkClassesAndToLimits() throws Exception {
        RpcService server = service();
        RpcService client = service();
        server.expose("echo", EchoGateway.class, new TestingEchoGateway("b"), null);
        EchoGateway remote = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());

        assertThat(get(remote.typeOf(new java.util.ArrayList<>(List.of(1, "x", java.time.Duration.ofSeconds(1))))))
                .isEqualTo("java.util.ArrayList");
        assertThat(get(remote.typeOf(Optional.of("x")))).as("optionals cross as optionals").isEqualTo("java.util.Optional");
        assertThat(failure(remote.typeOf(new java.text.DecimalFormat("#.#")))).isInstanceOf(RpcException.class)
                .hasMessageContaining("EchoGateway.typeOf").hasMessageContaining("class java.text.DecimalFormat")
                .hasMessageContaining("may not carry");
        Object deep = "leaf";
        for (int i = 0; i < 300; i++) {
            deep = List.of(deep);
        }
        assertThat(failure(remote.typeOf(deep))).isInstanceOf(RpcException.class)
                .hasMessageContaining("nested deeper than 256");
        assertThat(get(remote.echo("still fine"))).isEqualTo("b:still fine");
    }

    @Test
    void aCallToAMissingEndpointSaysSo() {
        RpcService server = service();
        RpcService client = service();
        server.expose("dispatcher", EchoGateway.class, new TestingEchoGateway("b"), null);
        EchoGateway remote = client.remoteGateway(server.address(), "jobmaster-7", EchoGateway.class, null, Map.of());

        assertThat(failure(remote.echo("x"))).isInstanceOf(RpcEndpointNotFoundException.class)
                .hasMessageContaining("No endpoint 'jobmaster-7' on " + server.address())
                .hasMessageContaining("ended").hasMessageContaining("not the leader")
                .hasMessageContaining("dispatcher");

        server.unexpose("dispatcher");
        EchoGateway gone = client.remoteGateway(server.address(), "dispatcher", EchoGateway.class, null, Map.of());
        assertThat(failure(gone.echo("x"))).isInstanceOf(RpcEndpointNotFoundException.class);
    }

    @Test
    void aGatewayArgumentIsPassedByReferenceAndCalledBack() throws Exception {
        RpcService server = service();
        RpcService client = service();
        server.expose("echo", EchoGateway.class, new TestingEchoGateway("b"), null);
        EchoGateway remote = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());
        TestingEchoGateway local = new TestingEchoGateway("a");

        assertThat(get(remote.callBack(local, "ping"))).isEqualTo("a:ping");
        assertThat(get(remote.callBack(local, "again"))).isEqualTo("a:again");
        assertThat(client.endpointNames()).as("exported once per object").hasSize(1)
                .allMatch(n -> n.startsWith("echo-"));

        // Passed back to its origin, the reference is the local object again.
        assertThat(get(remote.returnIt(local))).isSameAs(local);
        // A remote proxy passed on stays a proxy to the same endpoint.
        EchoGateway back = get(remote.returnIt(remote));
        assertThat(back).isEqualTo(remote);

        // The server's view of the reference, and what happens once the origin unexports it.
        EchoGateway reference = server.remoteGateway(client.address(), client.endpointNames().get(0), EchoGateway.class,
                null, Map.of());
        assertThat(get(reference.echo("direct"))).isEqualTo("a:direct");
        client.unexport(local);
        assertThat(client.endpointNames()).isEmpty();
        assertThat(failure(reference.echo("x"))).isInstanceOf(RpcEndpointNotFoundException.class)
                .hasMessageContaining("ended");
    }

    @Test
    void aThrowableWhoseClassTheReceiverLacksKeepsMessageStackCausesAndMarker(@TempDir Path dir) throws Exception {
        Class<?> userException = compileUserException(dir);
        RpcService server = service();
        RpcService client = service();
        TestingEchoGateway impl = new TestingEchoGateway("b");
        impl.failure = () -> {
            try {
                return (Throwable) userException.getConstructor(String.class, Throwable.class)
                        .newInstance("bad record 42", new IOException("disk said no"));
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
        };
        server.expose("echo", EchoGateway.class, impl, null);
        EchoGateway remote = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());

        Throwable error = failure(remote.fail());
        assertThat(error).isInstanceOf(SerializedThrowable.class).isInstanceOf(UnrecoverableJobException.class)
                .hasMessage("bad record 42");
        assertThat(((SerializedThrowable) error).originalClassName()).isEqualTo("userjob.BadRecordException");
        assertThat(error.toString()).isEqualTo("userjob.BadRecordException: bad record 42");
        assertThat(error.getStackTrace()).isNotEmpty();
        assertThat(error.getCause()).isExactlyInstanceOf(IOException.class).hasMessage("disk said no");
        assertThat(UnrecoverableJobException.isCauseOf(new RuntimeException("wrapped", error))).isTrue();

        // A throwable the receiver knows arrives as itself.
        impl.failure = () -> new IllegalArgumentException("plain");
        assertThat(failure(remote.fail())).isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("plain");

        // Each level of a chain is recreated on its own: a known wrapper of an unknown cause keeps its type.
        impl.failure = () -> {
            IllegalStateException wrapper = new IllegalStateException("upload failed",
                    (Throwable) newInstance(userException, "from the library"));
            wrapper.addSuppressed(new IOException("also this"));
            return wrapper;
        };
        Throwable wrapped = failure(remote.fail());
        assertThat(wrapped).isExactlyInstanceOf(IllegalStateException.class).hasMessage("upload failed");
        assertThat(wrapped.getCause()).isInstanceOf(SerializedThrowable.Unrecoverable.class).hasMessage("from the library");
        assertThat(wrapped.getSuppressed()).singleElement().isInstanceOf(IOException.class);
        assertThat(UnrecoverableJobException.isCauseOf(wrapped)).isTrue();
        assertThat(JobResult.describe(wrapped)).as("a job result names the original class")
                .isEqualTo("userjob.BadRecordException: from the library");

        // A throwable that cannot be serialized (a field is not Serializable) keeps its class name and message.
        impl.failure = () -> new NotSerializableFailure("holds a thread");
        Throwable unserializable = failure(remote.fail());
        assertThat(unserializable).isInstanceOf(SerializedThrowable.class).hasMessage("holds a thread");
        assertThat(unserializable.toString()).startsWith(NotSerializableFailure.class.getName());
    }

    /** A throwable with a field that is not serializable. */
    static final class NotSerializableFailure extends RuntimeException {
        @SuppressWarnings("unused")
        private final Object notSerializable = new Object();

        NotSerializableFailure(String message) {
            super(message);
        }
    }

    private static Object newInstance(Class<?> userException, String message) {
        try {
            return userException.getConstructor(String.class, Throwable.class).newInstance(message, null);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static Class<?> compileUserException(Path dir) throws Exception {
        Path src = dir.resolve("userjob/BadRecordException.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, """
                package userjob;
                public class BadRecordException extends RuntimeException implements io.sluice.api.errors.UnrecoverableJobException {
                    public BadRecordException(String message, Throwable cause) { super(message, cause); }
                }
                """);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-classpath", System.getProperty("java.class.path"), "-d",
                dir.toString(), src.toString());
        assertThat(rc).as("javac").isZero();
        URLClassLoader throwaway = new URLClassLoader(new URL[] {dir.toUri().toURL()}, RpcServiceTest.class.getClassLoader());
        return throwaway.loadClass("userjob.BadRecordException");
    }

    @Test
    void closeFailsCallsInFlightAndReleasesEveryThread() throws Exception {
        RpcService server = RpcService.builder().bind("127.0.0.1", 0).start();
        RpcService client = RpcService.builder().bind("127.0.0.1", 0).start();
        TestingEchoGateway impl = new TestingEchoGateway("b");
        server.expose("echo", EchoGateway.class, impl, null);
        EchoGateway remote = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());
        assertThat(get(remote.echo("x"))).isEqualTo("b:x");
        CompletableFuture<String> pending = remote.never();
        await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> impl.neverAnswered.size() == 1);
        assertThat(threadsNamed(client.threadNamePrefix())).isNotEmpty();
        assertThat(threadsNamed(client.threadNamePrefix())).allMatch(Thread::isDaemon);

        client.close();
        assertThat(failure(pending)).isInstanceOf(RpcConnectionException.class).hasMessageContaining("closed");
        assertThat(failure(remote.echo("y"))).isInstanceOf(RpcException.class).hasMessageContaining("closed");
        server.close();
        client.close(); // idempotent
        await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> threadsNamed(client.threadNamePrefix()).isEmpty()
                && threadsNamed(server.threadNamePrefix()).isEmpty());
        try (ServerSocket again = new ServerSocket(server.address().port())) {
            assertThat(again.getLocalPort()).as("the port is free again").isEqualTo(server.address().port());
        }
    }

    private static List<Thread> threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix) && t.isAlive()).toList();
    }
}
