package io.sluice.rest.dashboard;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.cluster.LocalCluster;
import io.sluice.rest.server.RestServer;
import io.sluice.rest.RestServerConfig;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.local.LocalClusterBackend;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.rest.metrics.MetricsRoutes;
import io.sluice.storage.FaultInjectingBlobStore;
import io.sluice.util.SystemClock;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A cluster as {@code sluice cluster} assembles it, for the dashboard and metrics tests: a
 * {@link LocalCluster} on one Prometheus registry (checkpoint storage wrapped in a fault injector),
 * and a REST server on an ephemeral loopback port with the metrics endpoint, request timing and
 * the dashboard.
 */
final class DashboardTestCluster implements AutoCloseable {
    private final LocalCluster cluster;
    private final RestServer server;
    private final PrometheusMeterRegistry registry;
    private final AtomicReference<FaultInjectingBlobStore> faults;
    private final ExecutorService io;

    private DashboardTestCluster(LocalCluster cluster, RestServer server, PrometheusMeterRegistry registry,
                                 AtomicReference<FaultInjectingBlobStore> faults, ExecutorService io) {
        this.cluster = cluster;
        this.server = server;
        this.registry = registry;
        this.faults = faults;
        this.io = io;
    }

    /** @param token the bearer token the server requires, or {@code null} for none */
    static DashboardTestCluster start(Path dir, String token, LocalCluster.Builder builder) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        AtomicReference<FaultInjectingBlobStore> faults = new AtomicReference<>();
        LocalCluster cluster = builder.meterRegistry(registry)
                .blobStoreDecorator(FaultInjectingBlobStore.capturingInto(faults)).build();
        ExecutorService io = Executors.newCachedThreadPool();
        RestServer server = RestServer.builder(RestServerConfig.defaults().withPort(0).withAuthToken(token),
                        new LocalClusterBackend(cluster, new LocalJarDirectory(dir.resolve("jars"), io, SystemClock.INSTANCE),
                                JarRunner.unsupported()))
                .meterRegistry(registry)
                .addRoutes(new MetricsRoutes(registry))
                .addRoutes(new DashboardRoutes())
                .build().start();
        return new DashboardTestCluster(cluster, server, registry, faults, io);
    }

    LocalCluster cluster() {
        return cluster;
    }

    RestServer server() {
        return server;
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    /** The fault injector around the checkpoint storage (opened with the first job). */
    FaultInjectingBlobStore faults() {
        FaultInjectingBlobStore f = faults.get();
        if (f == null) {
            throw new IllegalStateException("No checkpoint storage was opened yet: submit a job first");
        }
        return f;
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.port();
    }

    @Override
    public void close() {
        FaultInjectingBlobStore f = faults.get();
        if (f != null) {
            f.heal();
        }
        server.close();
        cluster.close();
        io.shutdownNow();
    }
}
