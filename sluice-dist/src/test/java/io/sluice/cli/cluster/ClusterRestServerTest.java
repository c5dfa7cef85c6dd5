package io.sluice.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.config.Configuration;
import io.sluice.rest.RestOptions;
import io.sluice.rest.server.RestServer;
import io.sluice.rest.RestServerConfig;
import io.sluice.rest.gateway.DispatcherRestBackend;
import io.sluice.rest.gateway.JobManagerProcessView;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.util.SystemClock;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The REST server of {@code sluice cluster} and {@code sluice jobmanager}: serves, or says why it cannot. */
class ClusterRestServerTest {
    @TempDir
    Path jarDir;

    @Test
    void aTakenPortIsOneErrorNamingTheAddressTheCauseAndWhatToDo() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            RestServerConfig config = config(taken.getLocalPort());
            assertThatThrownBy(() -> ClusterRestServer.start(config, backend(), metrics(), "another job manager"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("Could not serve the REST API on 127.0.0.1:" + taken.getLocalPort() + " (")
                    .hasMessageContaining("Address already in use")
                    .hasMessageEndingWith("is another job manager running here? Pick another port with --port");
        }
    }

    @Test
    void servesTheApiMetricsAndDashboard() throws Exception {
        RestServer server = ClusterRestServer.start(config(0), backend(), metrics(), "another cluster");
        try {
            HttpClient http = HttpClient.newHttpClient();
            for (String path : new String[] {"/v1/jars", "/metrics", "/"}) {
                HttpResponse<String> answer = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.port() + path)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(answer.statusCode()).as(path).isEqualTo(200);
            }
        } finally {
            server.close();
        }
    }

    private static RestServerConfig config(int port) {
        return RestServerConfig.fromConfiguration(new Configuration().set(RestOptions.ADDRESS, "127.0.0.1")
                .set(RestOptions.PORT, port));
    }

    private DispatcherRestBackend backend() {
        return new DispatcherRestBackend(new JobManagerProcessView(), new LocalJarDirectory(jarDir, Runnable::run,
                SystemClock.INSTANCE), JarRunner.unsupported());
    }

    private static PrometheusMeterRegistry metrics() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }
}
