package io.sluice.rpc.remote;

import static io.sluice.rpc.remote.RpcFutures.failure;
import static io.sluice.rpc.remote.RpcFutures.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.Configuration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Fencing at the endpoint level, over loopback TCP between two services in this JVM: unfenced
 * methods of a fenced endpoint, the "who leads" hint of a refusal, proxies re-made for another
 * token, and objects passed by reference that fence their own export ({@link FencedGateway}).
 * Timeouts run on a manual scheduler; nothing sleeps.
 */
class RpcFencingTest {
    private final LoopbackRpcServices services = new LoopbackRpcServices();

    @AfterEach
    void closeAll() throws Exception {
        services.close();
    }

    private RpcService service() {
        return services.start(new Configuration());
    }

    /** Keeps the gateway it gets; thread-safe. */
    private static final class Keeper implements KeeperGateway {
        final AtomicReference<EchoGateway> kept = new AtomicReference<>();

        @Override
        public CompletableFuture<String> whoLeads() {
            return CompletableFuture.completedFuture("keeper");
        }

        @Override
        public CompletableFuture<String> keep(EchoGateway gateway) {
            kept.set(gateway);
            return CompletableFuture.completedFuture("kept");
        }

        @Override
        public CompletableFuture<String> callKept(String text) {
            return kept.get().echo(text);
        }
    }

    /** An echo gateway that is fenced when passed by reference, with a token the test sets. */
    private static final class FencedEcho implements EchoGateway, FencedGateway {
        private final TestingEchoGateway echo = new TestingEchoGateway("fenced");
        volatile UUID token;

        @Override
        public UUID fencingToken() {
            return token;
        }

        @Override public String name() { return echo.name(); }
        @Override public CompletableFuture<String> echo(String text) { return echo.echo(text); }
        @Override public void record(String text) { echo.record(text); }
        @Override public CompletableFuture<String> never() { return echo.never(); }
        @Override public CompletableFuture<byte[]> bytes(int size) { return echo.bytes(size); }
        @Override public CompletableFuture<Integer> length(byte[] data) { return echo.length(data); }
        @Override public CompletableFuture<String> callBack(EchoGateway caller, String text) { return echo.callBack(caller, text); }
        @Override public CompletableFuture<EchoGateway> returnIt(EchoGateway gateway) { return echo.returnIt(gateway); }
        @Override public CompletableFuture<String> typeOf(Object value) { return echo.typeOf(value); }
        @Override public CompletableFuture<String> fail() { return echo.fail(); }
    }

    @Test
    void anUnfencedMethodIsAnsweredWhateverTheTokenWhileTheOthersAreRefused() throws Exception {
        RpcService server = service();
        RpcService client = service();
        server.expose("keeper", KeeperGateway.class, new Keeper(), () -> null, () -> "job manager jm-2 leads");

        KeeperGateway noToken = client.remoteGateway(server.address(), "keeper", KeeperGateway.class, null, Map.of());
        assertThat(get(noToken.whoLeads())).isEqualTo("keeper");
        KeeperGateway someToken = client.remoteGateway(server.address(), "keeper", KeeperGateway.class,
                UUID.randomUUID(), Map.of());
        assertThat(get(someToken.whoLeads())).isEqualTo("keeper");

        assertThat(failure(someToken.callKept("x"))).isInstanceOf(FencingTokenMismatchException.class)
                .hasMessageContaining("'keeper'").hasMessageContaining("callKept")
                .hasMessageContaining("does not lead").hasMessageContaining("job manager jm-2 leads");
    }

    @Test
    void aRefusalNamesBothSessionsAndThatTheCallerIsNoLongerLeader() throws Exception {
        RpcService server = service();
        RpcService client = service();
        UUID old = UUID.randomUUID();
        UUID now = UUID.randomUUID();
        server.expose("echo", EchoGateway.class, new TestingEchoGateway("b"), () -> now);

        EchoGateway stale = client.remoteGateway(server.address(), "echo", EchoGateway.class, old, Map.of("name", "b"));
        Throwable refused = failure(stale.echo("x"));
        assertThat(refused).isInstanceOf(FencingTokenMismatchException.class)
                .hasMessageContaining(old.toString()).hasMessageContaining(now.toString())
                .hasMessageContaining("no longer leader");
        assertThat(((FencingTokenMismatchException) refused).sentToken()).isEqualTo(old);
        assertThat(((FencingTokenMismatchException) refused).currentToken()).isEqualTo(now);
        assertThat(FencingTokenMismatchException.isCause(new java.util.concurrent.CompletionException(refused))).isTrue();

        EchoGateway renewed = RpcService.withFencingToken(stale, now);
        assertThat(RpcService.fencingTokenOf(renewed)).isEqualTo(now);
        assertThat(RpcService.fencingTokenOf(stale)).isEqualTo(old);
        assertThat(renewed.name()).isEqualTo(stale.name());
        assertThat(get(renewed.echo("x"))).isEqualTo("b:x");

        TestingEchoGateway local = new TestingEchoGateway("local");
        assertThat(RpcService.withFencingToken(local, now)).isSameAs(local);
    }

    @Test
    void anObjectPassedByReferenceThatIsAFencedGatewayRefusesCallsOnceItsTokenChanged() throws Exception {
        RpcService server = service();
        RpcService client = service();
        Keeper keeper = new Keeper();
        server.expose("keeper", KeeperGateway.class, keeper, null);
        KeeperGateway remoteKeeper = client.remoteGateway(server.address(), "keeper", KeeperGateway.class, null, Map.of());

        FencedEcho echo = new FencedEcho();
        UUID first = UUID.randomUUID();
        echo.token = first;
        assertThat(get(remoteKeeper.keep(echo))).isEqualTo("kept");
        assertThat(RpcService.fencingTokenOf(keeper.kept.get())).as("the reference carries the token").isEqualTo(first);
        assertThat(get(remoteKeeper.callKept("a"))).isEqualTo("fenced:a");

        UUID second = UUID.randomUUID();
        echo.token = second; // a new leader session: the proxy the server kept speaks for the old one
        assertThat(failure(remoteKeeper.callKept("b"))).isInstanceOf(FencingTokenMismatchException.class)
                .hasMessageContaining(first.toString()).hasMessageContaining(second.toString());

        echo.token = null; // no session at all: every call refused
        assertThat(failure(remoteKeeper.callKept("c"))).isInstanceOf(FencingTokenMismatchException.class)
                .hasMessageContaining("does not lead");

        echo.token = second;
        assertThat(get(remoteKeeper.keep(echo))).isEqualTo("kept"); // passed again: the new reference speaks for second
        assertThat(get(remoteKeeper.callKept("d"))).isEqualTo("fenced:d");
    }
}
