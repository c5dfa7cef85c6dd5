package io.sluice.rest.metrics;

import io.javalin.http.Context;
import io.javalin.http.RequestLogger;
import io.javalin.router.Endpoint;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Times every HTTP request in {@code sluice.rest.requests} (tags {@code method}, {@code route} — the
 * route's path template such as {@code /v1/jobs/{jobId}}, or {@code unmatched} for a path no route
 * serves, so that hostile paths cannot create meters — and {@code status}), with a percentile
 * histogram from 0.1 ms to 30 s. Installed as the server's request logger, which Javalin calls when
 * a response is complete, also for asynchronous handlers.
 *
 * <p>Threading: called on the server's request threads; thread-safe.
 */
public final class RestRequestMetrics implements RequestLogger {
    public static final String REQUESTS_METRIC = "sluice.rest.requests";
    static final String UNMATCHED = "unmatched";

    private final MeterRegistry registry;

    public RestRequestMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public void handle(Context ctx, Float executionMillis) {
        Endpoint endpoint = ctx.endpoints().matchedHttpEndpoint();
        String route = endpoint == null ? UNMATCHED : endpoint.path;
        Timer.builder(REQUESTS_METRIC).description("HTTP requests to the REST API, the dashboard and /metrics")
                .tag("method", endpoint == null ? "other" : endpoint.method.name())
                .tag("route", route)
                .tag("status", Integer.toString(ctx.statusCode()))
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(100_000))
                .maximumExpectedValue(Duration.ofSeconds(30))
                .register(registry)
                .record((long) (executionMillis * 1_000_000.0), TimeUnit.NANOSECONDS);
    }
}
