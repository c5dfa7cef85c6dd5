package io.sluice.testing.netns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real processes in real network namespaces: a server on test host 1 is reached from host 2 and
 * from the machine; cutting the 1-2 link makes host 2's connection fail while the machine still
 * gets through; healing restores it. Skipped, saying why, where the kernel refuses namespaces.
 */
class TestNetworkTest {
    private static final int PORT = 7461;

    @BeforeAll
    static void namespacesAvailable() {
        String why = TestNetwork.probe();
        assumeTrue(why == null, () -> "skipped: " + why);
    }

    @Test
    void aPartitionCutsExactlyOnePairOfHostsAndHealingRestoresIt() throws Exception {
        try (TestNetwork net = TestNetwork.create(2)) {
            Process server = new ProcessBuilder(net.commandOn(1, java("server", net.address(1)))).start();
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(),
                        StandardCharsets.UTF_8));
                assertThat(out.readLine()).isEqualTo("listening");

                assertThat(clientOn(net, 2)).as("host 2 reaches host 1").isZero();
                assertThat(echoFromMachine(net.address(1))).as("the machine reaches host 1").isTrue();

                net.partition(1, 2);
                assertThat(clientOn(net, 2)).as("host 2 is cut from host 1").isEqualTo(1);
                assertThat(echoFromMachine(net.address(1))).as("the machine still reaches host 1").isTrue();

                net.heal(1, 2);
                assertThat(clientOn(net, 2)).as("healed").isZero();

                net.isolate(1);
                assertThat(echoFromMachine(net.address(1))).as("an isolated host is cut from the machine too")
                        .isFalse();
                net.healAll();
                assertThat(echoFromMachine(net.address(1))).isTrue();
            } finally {
                server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static int clientOn(TestNetwork net, int host) throws Exception {
        Process client = new ProcessBuilder(net.commandOn(host, java("client", net.address(1))))
                .redirectErrorStream(true).start();
        assertThat(client.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return client.exitValue();
    }

    private static boolean echoFromMachine(String address) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, PORT), 2000);
            s.setSoTimeout(2000);
            new java.io.DataOutputStream(s.getOutputStream()).writeInt(42);
            return new java.io.DataInputStream(s.getInputStream()).readInt() == 42;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static List<String> java(String mode, String address) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(EchoMain.class.getName());
        cmd.add(mode);
        cmd.add(address);
        cmd.add(String.valueOf(PORT));
        return cmd;
    }
}
