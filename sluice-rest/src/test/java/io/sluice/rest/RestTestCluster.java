package io.sluice.rest;

import io.sluice.cluster.LocalCluster;
import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.local.LocalClusterBackend;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.rest.server.RestServer;
import io.sluice.util.SystemClock;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** A {@link RestServer} on a free loopback port over a {@link LocalCluster}, and a client for it. */
final class RestTestCluster implements AutoCloseable {
    final LocalCluster cluster;
    final RestServer server;
    final RestTestClient client;
    private final ExecutorService io = Executors.newCachedThreadPool(DaemonThreadFactory.named("rest-test-io"));

    RestTestCluster(LocalCluster cluster, Path jarDir, RestServerConfig config, JarRunner runner) {
        this(cluster, jarDir, config, runner, false);
    }

    /** @param deleteJarsWithLastJob {@code rest.jars.delete-with-last-job} */
    RestTestCluster(LocalCluster cluster, Path jarDir, RestServerConfig config, JarRunner runner,
                    boolean deleteJarsWithLastJob) {
        this.cluster = cluster;
        this.server = RestServer.builder(config.withPort(0),
                new LocalClusterBackend(cluster, new LocalJarDirectory(jarDir, io, SystemClock.INSTANCE), runner,
                        deleteJarsWithLastJob))
                .build().start();
        this.client = new RestTestClient(server.port(), config.authToken());
    }

    RestTestCluster(LocalCluster cluster, Path jarDir) {
        this(cluster, jarDir, RestServerConfig.defaults(), JarRunner.unsupported());
    }

    @Override
    public void close() {
        server.close();
        cluster.close();
        io.shutdownNow();
    }
}
