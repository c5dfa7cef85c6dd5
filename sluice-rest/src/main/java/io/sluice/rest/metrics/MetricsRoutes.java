package io.sluice.rest.metrics;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.rest.RestRouter;
import io.sluice.rest.RestRoutes;
import java.util.Objects;

/**
 * {@code GET /metrics}: every meter of the cluster's registry in the Prometheus text format (the
 * names are listed in {@code docs/metrics.md}). Requires the bearer token when one is set
 * (Prometheus sends it with {@code authorization: {credentials: ...}} in its scrape config).
 *
 * <p>Threading: the scrape runs on a request thread; it reads the meters (counters, gauges that read
 * task counters racily) and does no I/O and no hop to a component's main thread.
 */
public final class MetricsRoutes implements RestRoutes {
    /** The Prometheus text exposition format, version 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;

    public MetricsRoutes(PrometheusMeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public void register(RestRouter router) {
        router.get("/metrics", ctx -> ctx.contentType(CONTENT_TYPE).result(registry.scrape()));
    }
}
