package io.sluice.rpc.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.config.Configuration;
import io.sluice.config.SecurityOptions.TlsProvider;
import io.sluice.security.tls.InternalTls;
import io.sluice.security.tls.TlsIdentity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code openssl} commands of docs/security.md, run as written (the block between its
 * {@code BEGIN TESTED} and {@code END TESTED} markers): the node certificate they make gives two RPC
 * services mutual TLS through both providers, and the REST certificate is read with its host names.
 */
class DocumentedCertificateCommandsTest {
    private static final Path DOC = Path.of("..", "docs", "security.md");

    @TempDir
    Path dir;

    private final LoopbackRpcServices services = new LoopbackRpcServices();

    @AfterEach
    void close() throws Exception {
        services.close();
    }

    @Test
    void theCommandsMakeCertificatesSluiceUses() throws Exception {
        assumeTrue(onPath("openssl"), "openssl is not installed here");
        String doc = Files.readString(DOC);
        String begin = "<!-- BEGIN TESTED: certificate commands -->\n```sh\n";
        String end = "```\n<!-- END TESTED: certificate commands -->";
        assertThat(doc).as(DOC + " has the tested block").contains(begin).contains(end);
        String script = doc.substring(doc.indexOf(begin) + begin.length(), doc.indexOf(end));
        Process p = new ProcessBuilder("sh", "-e", "-c", script).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("the commands of " + DOC + ":\n" + out).isZero();

        TlsIdentity node = TlsIdentity.load(dir.resolve("node-key.pem"), "key", dir.resolve("node.pem"), "certificate",
                dir.resolve("ca.pem"), "trusted");
        for (TlsProvider provider : List.of(TlsProvider.JDK, TlsProvider.OPENSSL)) {
            InternalTls a = InternalTls.of(node, provider);
            InternalTls b = InternalTls.of(node, provider);
            RpcService server = services.closeAfterTest(RpcService.builder().bind("127.0.0.1", 0)
                    .configuration(new Configuration()).timer(services.timer()).tls(a).start());
            RpcService client = services.closeAfterTest(RpcService.builder().bind("127.0.0.1", 0)
                    .configuration(new Configuration()).timer(services.timer()).tls(b).start());
            server.expose("echo", EchoGateway.class, new TestingEchoGateway("node"), null);
            EchoGateway echo = client.remoteGateway(server.address(), "echo", EchoGateway.class, null, Map.of());
            assertThat(echo.echo(provider.name()).get(10, TimeUnit.SECONDS)).isEqualTo("node:" + provider.name());
            assertThat(a.handshakesCompleted()).as(provider + " handshakes").isEqualTo(1);
        }

        TlsIdentity rest = TlsIdentity.load(dir.resolve("rest-key.pem"), "key", dir.resolve("rest.pem"), "certificate",
                null, null);
        List<Object> names = rest.chain().get(0).getSubjectAlternativeNames().stream().map(n -> (Object) n.get(1)).toList();
        assertThat(names).contains("localhost", "127.0.0.1");
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(
                dir.resolve("node-key.pem")))).isEqualTo("rw-------");
    }

    private static boolean onPath(String command) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, command))) {
                return true;
            }
        }
        return false;
    }
}
