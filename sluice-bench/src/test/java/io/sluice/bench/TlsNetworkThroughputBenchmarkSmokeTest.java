package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.bench.TlsNetworkThroughputBenchmark.Result;
import io.sluice.bench.TlsNetworkThroughputBenchmark.Transport;
import io.sluice.bench.ThroughputBenchmark.Run;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Runs the plain vs TLS harness in smoke mode. Asserts that every transport counts and that TLS handshakes happened, never how fast. */
class TlsNetworkThroughputBenchmarkSmokeTest {
    @Test
    void smokeModeCountsOverEveryTransportAndPrintsTheRatios() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Result result;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            result = TlsNetworkThroughputBenchmark.run(NetworkThroughputBenchmark.Options.smoke(), out);
        }
        String output = bytes.toString(StandardCharsets.UTF_8);
        for (Transport t : Transport.values()) {
            assertThat(result.results().get(t).runs()).as(output).hasSize(1).allMatch(Run::valid)
                    .allSatisfy(r -> assertThat(r.records()).isPositive());
        }
        assertThat(result.handshakes().get(Transport.PLAIN)).isZero();
        assertThat(result.handshakes().get(Transport.TLS_JDK)).as(output).isPositive();
        assertThat(result.handshakes().get(Transport.TLS_OPENSSL)).as(output).isPositive();
        assertThat(output).contains("RATIO TLS, JDK / plain").contains("RATIO TLS, OpenSSL / plain");
    }
}
