package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.rest.jars.JarRunner;
import io.sluice.testing.tls.TestCertificates;
import io.sluice.testing.tls.TestCertificates.Authority;
import io.sluice.testing.tls.TestCertificates.PemFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The REST server's secure defaults, against a real server on loopback: it refuses to be configured
 * on 0.0.0.0 without a token (unless told to allow it); on loopback it refuses requests whose Host
 * or Origin names another host (DNS rebinding), except the configured extra names; and it serves
 * HTTPS with a key and certificate made by the test, which a client trusting the CA reads and a
 * plain-HTTP client cannot.
 */
class RestSecurityITCase {
    @TempDir
    Path dir;

    @Test
    void anAddressOffLoopbackWithoutATokenIsRefusedNamingTheAddressAndTheWaysOut() {
        Configuration c = new Configuration().setString("rest.address", "0.0.0.0").setString("rest.port", "8081");
        assertThatThrownBy(() -> RestServerConfig.fromConfiguration(c)).isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("Refusing to serve the REST API on 0.0.0.0:8081 without a token: that address is reachable"
                        + " from other machines, and anyone who reaches it could submit jobs (run any code on the"
                        + " cluster), cancel them and read their data. Set a token (rest.auth.token-file or"
                        + " rest.auth.token; clients then pass --token-file or --token), or set"
                        + " rest.auth.allow-unauthenticated: true to let everyone who reaches 0.0.0.0 do all of that");
        assertThat(RestServerConfig.fromConfiguration(c.copy().setString("rest.auth.token", "t")).authToken()).isEqualTo("t");
        assertThat(RestServerConfig.fromConfiguration(c.copy().setString("rest.auth.allow-unauthenticated", "true"))
                .allowUnauthenticated()).isTrue();
        for (String loopback : List.of("127.0.0.1", "localhost", "::1", "127.0.0.2")) {
            assertThat(RestServerConfig.fromConfiguration(new Configuration().setString("rest.address", loopback))
                    .bindAddress()).isEqualTo(loopback);
        }
    }

    @Test
    void onLoopbackARequestForAnotherHostOrFromAnotherOriginIsRefused() throws Exception {
        RestServerConfig config = RestServerConfig.fromConfiguration(new Configuration()
                .setString("rest.allowed-hosts", "sluice.internal, tunnel.example"));
        try (RestTestCluster rest = new RestTestCluster(LocalCluster.builder().taskExecutors(1).build(), dir, config,
                JarRunner.unsupported())) {
            int port = rest.server.port();
            assertThat(rawGet(port, "localhost:" + port, null)).startsWith("HTTP/1.1 200");
            assertThat(rawGet(port, "127.0.0.1:" + port, "http://127.0.0.1:" + port)).startsWith("HTTP/1.1 200");
            assertThat(rawGet(port, "[::1]:" + port, null)).startsWith("HTTP/1.1 200");
            assertThat(rawGet(port, "sluice.internal:" + port, null)).as("a configured name").startsWith("HTTP/1.1 200");

            String rebound = rawGet(port, "evil.example:" + port, null);
            assertThat(rebound).startsWith("HTTP/1.1 403").contains("Refused a request for the host 'evil.example:"
                    + port + "': this server listens on 127.0.0.1 (loopback) and answers only requests addressed to"
                    + " localhost, 127.0.0.1 or [::1]").contains("DNS rebinding").contains("rest.allowed-hosts");
            assertThat(rawGet(port, "localhost:" + port, "http://evil.example")).startsWith("HTTP/1.1 403")
                    .contains("from a page of the origin 'http://evil.example'");
            assertThat(rawGetPath(port, "evil.example", null, "/dashboard/")).as("the dashboard too")
                    .startsWith("HTTP/1.1 403");
        }
    }

    @Test
    void httpsWithTheConfiguredKeyAndCertificateIsReadByAClientThatTrustsTheCa() throws Exception {
        Authority ca = TestCertificates.authority("Sluice test REST CA");
        PemFiles files = ca.issue("localhost", dir.resolve("tls"));
        RestServerConfig config = RestServerConfig.fromConfiguration(new Configuration()
                .setString("rest.tls.enabled", "true").setString("rest.tls.key", files.key().toString())
                .setString("rest.tls.certificate", files.certificate().toString()).setString("rest.auth.token", "s3cret"));
        assertThat(config.scheme()).isEqualTo("https");
        try (RestTestCluster rest = new RestTestCluster(LocalCluster.builder().taskExecutors(1).build(), dir, config,
                JarRunner.unsupported())) {
            URI overview = URI.create("https://localhost:" + rest.server.port() + "/v1/overview");
            HttpClient trusting = HttpClient.newBuilder().sslContext(new io.sluice.security.tls.TlsIdentity(null,
                    List.of(), List.of(ca.certificate())).jdkContext()).build();
            HttpResponse<String> ok = trusting.send(HttpRequest.newBuilder(overview).header("Authorization", "Bearer s3cret")
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).contains("slotsTotal");
            assertThat(trusting.send(HttpRequest.newBuilder(overview).build(), HttpResponse.BodyHandlers.ofString())
                    .statusCode()).as("the token is still required").isEqualTo(401);

            assertThatThrownBy(() -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(overview).build(),
                    HttpResponse.BodyHandlers.ofString())).as("a client that does not trust the CA")
                    .isInstanceOf(SSLHandshakeException.class);
            assertThat(rawGet(rest.server.port(), "localhost", null)).as("plain HTTP on the HTTPS port")
                    .doesNotContain("slotsTotal");
        }
    }

    private static String rawGet(int port, String host, String origin) throws IOException {
        return rawGetPath(port, host, origin, "/v1/overview");
    }

    /** A GET over a plain socket, with exactly these Host and Origin headers (HttpClient cannot set Host). */
    private static String rawGetPath(int port, String host, String origin, String path) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + (origin == null ? "" : "Origin: " + origin
                    + "\r\n") + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            try {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException reset) {
                return "";
            }
        }
    }
}
