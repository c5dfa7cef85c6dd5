package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cluster.LocalCluster;
import io.sluice.config.SecurityOptions.TlsProvider;
import io.sluice.network.netty.NettyShuffleEnvironment;
import io.sluice.security.tls.InternalTls;
import io.sluice.testing.tls.TestCertificates;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exactly-once scenario of {@link ExactlyOnceITCase} with every connection of the cluster on
 * mutual TLS: job masters reach the task executors only over RPC ({@code remoteRpc}) and the keyed
 * channels between the two task executors cross TCP ({@code networkDataExchange}), both with the
 * certificates of one test CA (made when the test runs; the default provider, OpenSSL here). Seeded
 * injected failures; the final count per key must be exact, and TLS handshakes and data over TCP
 * must have happened.
 */
class TlsEverywhereExactlyOnceITCase {
    private static final InjectedFailureCountingScenario.Draw DRAW =
            new InjectedFailureCountingScenario.Draw(20_000, 2, 3);
    private static LocalCluster cluster;
    private static InternalTls tls;

    @TempDir
    static Path dir;

    @BeforeAll
    static void startCluster() {
        tls = TestCertificates.authority("Sluice test cluster CA").issue("cluster", dir.resolve("tls"))
                .internalTls(TlsProvider.AUTO);
        cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(1).remoteRpc(true)
                .networkDataExchange(true).internalTls(tls).build();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    static Stream<Long> seeds() {
        return InjectedFailureCountingScenario.seeds(20261202L, 3);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void keyedCountsAreExactAfterInjectedFailuresWithMutualTlsOnRpcAndData(long seed) throws Exception {
        long sentBefore = buffersSent();
        long handshakesBefore = tls.handshakesCompleted();
        InjectedFailureCountingScenario.run(cluster, DRAW, seed, null, dir.resolve("seed-" + seed),
                "exactly-once with TLS on RPC and data, seed " + seed);
        assertThat(buffersSent() - sentBefore).as("seed %d: buffers sent over TLS", seed).isPositive();
        assertThat(tls.handshakesFailed()).as("failed handshakes").isZero();
        System.out.printf("seed %d: %d TLS handshakes so far (%s), %d new%n", seed, tls.handshakesCompleted(),
                tls.providerName(), tls.handshakesCompleted() - handshakesBefore);
        assertThat(tls.handshakesCompleted()).isPositive();
    }

    private static long buffersSent() {
        return cluster.networkEnvironments().stream().map(NettyShuffleEnvironment::metrics)
                .mapToLong(m -> m.buffersSent()).sum();
    }
}
