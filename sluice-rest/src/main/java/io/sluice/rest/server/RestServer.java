package io.sluice.rest.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import io.javalin.config.SizeUnit;
import io.javalin.http.HttpResponseException;
import io.javalin.json.JavalinJackson;
import io.sluice.rest.BearerTokenCheck;
import io.sluice.rest.RestBackend;
import io.sluice.rest.RestErrors;
import io.sluice.rest.RestRouter;
import io.sluice.rest.RestRoutes;
import io.sluice.rest.RestServerConfig;
import io.sluice.rest.routes.ClusterRoutes;
import io.sluice.rest.routes.JarRoutes;
import io.sluice.rest.routes.JobRoutes;
import io.sluice.rest.routes.OpenApiRoutes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server of the REST API (and of whatever extra route groups are added, such as the
 * metrics endpoint and the dashboard): Javalin on Jetty 12, listening on
 * {@link RestServerConfig#bindAddress()} (127.0.0.1 by default), over HTTPS with
 * {@link RestServerConfig#tls()} ({@link RestTls}). On loopback it refuses requests for other host
 * names ({@link HostHeaderCheck}); off loopback its configuration cannot be made without a token
 * unless explicitly allowed ({@link RestServerConfig}).
 *
 * <pre>{@code
 * RestServer server = RestServer.builder(RestServerConfig.defaults(), new LocalClusterBackend(cluster, jars, runner))
 *         .addRoutes(new MetricsRoutes(registry))
 *         .build();
 * server.start();
 * }</pre>
 *
 * <p>Threading: {@link #start()} and {@link #close()} from one controlling thread. Requests are
 * served on the server's own pool ({@code sluice-rest-N}, at most {@link #MAX_THREADS}); handlers
 * ask the {@link RestBackend}, which answers with futures from the components' gateways, so no
 * request ever waits on a component's main thread or on storage, and a component's main thread
 * never writes a response. An answer that does not come within the answer timeout
 * ({@link #ANSWER_TIMEOUT} by default) is 503.
 */
public final class RestServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RestServer.class);

    /** Request threads of the server. */
    public static final int MAX_THREADS = 32;
    /** How long a handler waits for the cluster's answer before it answers 503, unless the builder sets another. */
    public static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);
    /**
     * How long {@code POST /v1/jars/{id}/run} waits, unless the builder sets another: the time a
     * program's {@code main} may take to call {@code execute} ({@link io.sluice.jar.JarJobSubmitter#DEFAULT_MAIN_TIMEOUT})
     * plus {@link #ANSWER_TIMEOUT} for storing the jar and submitting the job. It must exceed the jar
     * runner's own timeout, so that a slow {@code main} is answered with the runner's reason, not a 503
     * after which the job might still be submitted.
     */
    public static final Duration RUN_ANSWER_TIMEOUT = io.sluice.jar.JarJobSubmitter.DEFAULT_MAIN_TIMEOUT.plus(ANSWER_TIMEOUT);
    /** Uploads up to this size stay in memory while parsed; larger ones go to a temporary file. */
    private static final int IN_MEMORY_UPLOAD_BYTES = 1024 * 1024;

    private final RestServerConfig config;
    private final Javalin app;
    private final List<RestRouter.Route> routes;
    private boolean started;

    private RestServer(Builder b) {
        this.config = b.config;
        QueuedThreadPool pool = new QueuedThreadPool(MAX_THREADS, 4);
        pool.setName("sluice-rest");
        pool.setDaemon(true);
        BearerTokenCheck auth = new BearerTokenCheck(config.authToken());
        HostHeaderCheck hosts = new HostHeaderCheck(config);
        List<RestRouter.Route> registered = new ArrayList<>();
        this.app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.startup.showOldJavalinVersionWarning = false;
            cfg.jetty.host = config.bindAddress();
            cfg.jetty.port = config.port();
            cfg.jetty.threadPool = pool;
            cfg.jetty.multipartConfig.maxFileSize(config.maxUploadBytes(), SizeUnit.BYTES);
            cfg.jetty.multipartConfig.maxTotalRequestSize(config.maxUploadBytes(), SizeUnit.BYTES);
            cfg.jetty.multipartConfig.maxInMemoryFileSize(IN_MEMORY_UPLOAD_BYTES, SizeUnit.BYTES);
            cfg.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrorHandler()));
            if (config.tls() != null) {
                RestTls.addHttpsConnector(cfg.jetty, config);
            }
            cfg.http.maxRequestSize = config.maxRequestBytes();
            cfg.http.prefer405over404 = true;
            cfg.jsonMapper(new JavalinJackson(new ObjectMapper(), false));
            cfg.routes.before(hosts::check);
            cfg.routes.before(ctx -> RequestLimits.check(ctx, config));
            if (b.meterRegistry != null) {
                cfg.requestLogger.http(new io.sluice.rest.metrics.RestRequestMetrics(b.meterRegistry));
            }
            cfg.routes.exception(Exception.class, (e, ctx) -> RestErrors.answer(e, ctx));
            // Javalin answers its own 404/405/413 through this type; without a handler of its own it writes text.
            cfg.routes.exception(HttpResponseException.class, (e, ctx) -> RestErrors.answer(e, ctx));
            RestRouter router = new RestRouter(cfg.routes, auth, pool, b.answerTimeout, config.maxRequestBytes());
            for (RestRoutes group : b.groups(config)) {
                group.register(router);
            }
            registered.addAll(router.routes());
        });
        this.routes = List.copyOf(registered);
    }

    public static Builder builder(RestServerConfig config, RestBackend backend) {
        return new Builder(config, backend);
    }

    /** Binds and starts serving; fails naming the address when it cannot bind. */
    public RestServer start() {
        if (started) {
            throw new IllegalStateException("The REST server is already started");
        }
        try {
            app.start();
        } catch (RuntimeException e) {
            throw new IllegalStateException("Could not start the REST server on " + config.bindAddress() + ":" + config.port()
                    + " (" + e.getMessage() + "). Is the port in use? Set rest.port (0 picks a free one) or rest.address.", e);
        }
        started = true;
        LOG.info("REST API listening on {}://{}:{}/v1 (token {})", config.scheme(), config.bindAddress(), port(),
                config.authToken() == null ? "not required" : "required");
        return this;
    }

    /** The port it listens on (the chosen one when configured with 0). */
    public int port() {
        return app.port();
    }

    public RestServerConfig config() {
        return config;
    }

    /** Every registered route, for the OpenAPI check and diagnostics. */
    public List<RestRouter.Route> routes() {
        return routes;
    }

    @Override
    public void close() {
        app.stop();
    }

    /** Assembles a server: the standard /v1 route groups plus any added ones. */
    public static final class Builder {
        private final RestServerConfig config;
        private final RestBackend backend;
        private final List<RestRoutes> extra = new ArrayList<>();
        private io.micrometer.core.instrument.@Nullable MeterRegistry meterRegistry;
        private Duration answerTimeout = ANSWER_TIMEOUT;
        private Duration runAnswerTimeout = RUN_ANSWER_TIMEOUT;

        private Builder(RestServerConfig config, RestBackend backend) {
            this.config = Objects.requireNonNull(config, "config");
            this.backend = Objects.requireNonNull(backend, "backend");
        }

        /** Adds a route group (for example the metrics endpoint or the dashboard). */
        public Builder addRoutes(RestRoutes routes) {
            extra.add(Objects.requireNonNull(routes, "routes"));
            return this;
        }

        /**
         * Times every request in {@code sluice.rest.requests} in {@code registry} (see
         * {@link io.sluice.rest.metrics.RestRequestMetrics}); without it requests are not measured.
         */
        public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** How long a handler waits for the backend's answer before it answers 503 (default {@link #ANSWER_TIMEOUT}). */
        public Builder answerTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("The answer timeout must be positive, not " + timeout);
            }
            this.answerTimeout = timeout;
            return this;
        }

        /**
         * How long a jar run request waits for the jar runner (default {@link #RUN_ANSWER_TIMEOUT}); set it
         * above the runner's timeout for a program's {@code main}.
         */
        public Builder runAnswerTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("The run answer timeout must be positive, not " + timeout);
            }
            this.runAnswerTimeout = timeout;
            return this;
        }

        private List<RestRoutes> groups(RestServerConfig cfg) {
            List<RestRoutes> all = new ArrayList<>();
            all.add(new ClusterRoutes(backend));
            all.add(new JobRoutes(backend));
            all.add(new io.sluice.rest.routes.SavepointRoutes(backend));
            all.add(new JarRoutes(backend, cfg.maxUploadBytes(), runAnswerTimeout));
            all.add(new OpenApiRoutes());
            all.addAll(extra);
            return all;
        }

        public RestServer build() {
            return new RestServer(this);
        }
    }
}
