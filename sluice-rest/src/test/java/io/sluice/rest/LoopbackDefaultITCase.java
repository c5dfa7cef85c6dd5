package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.cluster.LocalCluster;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With the default address the server answers on 127.0.0.1 and cannot be reached on the machine's other addresses. */
class LoopbackDefaultITCase {
    @TempDir
    Path dir;

    @Test
    void theDefaultAddressServesThisMachineOnly() throws Exception {
        try (RestTestCluster rest = new RestTestCluster(LocalCluster.builder().taskExecutors(1).build(), dir)) {
            assertThat(rest.server.config().bindAddress()).isEqualTo("127.0.0.1");
            assertThat(rest.client.get("/v1/overview").status()).isEqualTo(200);
            Optional<InetAddress> external = nonLoopbackAddress();
            assumeTrue(external.isPresent(), "this machine has no non-loopback IPv4 address to try");
            assertThatThrownBy(() -> {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(external.get(), rest.server.port()), 2_000);
                }
            }).isInstanceOf(java.io.IOException.class);
        }
    }

    private static Optional<InetAddress> nonLoopbackAddress() throws Exception {
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nif.isUp() || nif.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress()) {
                    return Optional.of(a);
                }
            }
        }
        return Optional.empty();
    }
}
