package io.sluice.cli.cluster;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.rest.RestBackend;
import io.sluice.rest.server.RestServer;
import io.sluice.rest.RestServerConfig;
import io.sluice.rest.dashboard.DashboardRoutes;
import io.sluice.rest.metrics.MetricsRoutes;
import io.sluice.util.Throwables;

/**
 * The REST server a long-running Sluice process serves ({@code sluice cluster}, {@code sluice
 * jobmanager}): the {@code /v1} API over {@code backend}, Prometheus metrics and the dashboard, started
 * on the configured address. Called on the command's thread; blocks until it listens.
 */
public final class ClusterRestServer {
    private ClusterRestServer() {
    }

    /**
     * Builds and starts the server.
     *
     * @param otherProcess what probably holds the port when it is taken ("another cluster", "another job
     *     manager"), for the error
     * @throws IllegalStateException when it cannot listen: names the address, the cause and what to do
     */
    public static RestServer start(RestServerConfig config, RestBackend backend, PrometheusMeterRegistry metrics,
            String otherProcess) {
        RestServer server = RestServer.builder(config, backend)
                .meterRegistry(metrics)
                .addRoutes(new MetricsRoutes(metrics))
                .addRoutes(new DashboardRoutes())
                .build();
        try {
            server.start();
        } catch (RuntimeException e) {
            throw new IllegalStateException("Could not serve the REST API on " + config.bindAddress() + ":"
                    + config.port() + " (" + rootMessage(e) + "); is " + otherProcess + " running here? Pick another"
                    + " port with --port", e);
        }
        return server;
    }

    private static String rootMessage(Throwable t) {
        return Throwables.rootCause(t).toString();
    }
}
