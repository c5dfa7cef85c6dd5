package io.sluice.rest;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import io.javalin.router.JavalinDefaultRoutingApi;
import io.sluice.concurrent.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A thin wrapper over Javalin's routing that every route group ({@link RestRoutes}) registers
 * through. It records each route (method, path, allowed query parameters, access) for the OpenAPI
 * check, requires the bearer token on every route but those registered with {@link #publicGet},
 * and rejects query parameters a route does not declare.
 *
 * <p>Threading: routes are registered on the thread that assembles the {@link io.sluice.rest.server.RestServer}, before it
 * listens. Handlers run on the server's request threads ({@code sluice-rest-N}); they must not block
 * and must not do I/O on a component's main thread: they ask a {@link RestBackend} and hand its future
 * to {@link #json}, which writes the answer on a request thread, never on the thread that completed
 * the future (often a Dispatcher's main thread).
 */
public final class RestRouter {

    /** Who may call a route. */
    public enum Access {
        /** The bearer token is required when one is configured. */
        TOKEN,
        /** No token: only for static assets that carry no cluster data (the dashboard's HTML, JS and CSS). */
        PUBLIC
    }

    /**
     * One registered route.
     *
     * @param method      HTTP method, upper case
     * @param path        Javalin path, {@code {name}} for a path parameter, {@code <name>} for one that may span slashes
     * @param queryParams query parameters the route accepts; any other is answered 400
     */
    public record Route(String method, String path, List<String> queryParams, Access access) {
        public Route {
            queryParams = List.copyOf(queryParams);
        }

        /** The path as OpenAPI writes it: every parameter as {@code {name}}. */
        public String openApiPath() {
            return path.replace('<', '{').replace('>', '}');
        }
    }

    private final JavalinDefaultRoutingApi javalin;
    private final BearerTokenCheck auth;
    private final Executor responseExecutor;
    private final Duration answerTimeout;
    private final long maxRequestBytes;
    private final List<Route> routes = new ArrayList<>();

    public RestRouter(JavalinDefaultRoutingApi javalin, BearerTokenCheck auth, Executor responseExecutor, Duration answerTimeout,
               long maxRequestBytes) {
        this.javalin = javalin;
        this.auth = auth;
        this.responseExecutor = responseExecutor;
        this.answerTimeout = answerTimeout;
        this.maxRequestBytes = maxRequestBytes;
    }

    /** A GET route without query parameters that requires the token. */
    public RestRouter get(String path, Handler handler) {
        return add(HandlerType.GET, path, List.of(), Access.TOKEN, handler);
    }

    /** A GET route that accepts the given query parameters and requires the token. */
    public RestRouter get(String path, List<String> queryParams, Handler handler) {
        return add(HandlerType.GET, path, queryParams, Access.TOKEN, handler);
    }

    /** A POST route without query parameters that requires the token. */
    public RestRouter post(String path, Handler handler) {
        return add(HandlerType.POST, path, List.of(), Access.TOKEN, handler);
    }

    /** A DELETE route without query parameters that requires the token. */
    public RestRouter delete(String path, Handler handler) {
        return add(HandlerType.DELETE, path, List.of(), Access.TOKEN, handler);
    }

    /**
     * A GET route served without the token. Only for static assets that carry no cluster data, such as
     * the dashboard's pages and scripts (which then call the {@code /v1} routes with the token).
     */
    public RestRouter publicGet(String path, List<String> queryParams, Handler handler) {
        return add(HandlerType.GET, path, queryParams, Access.PUBLIC, handler);
    }

    private RestRouter add(HandlerType method, String path, List<String> queryParams, Access access, Handler handler) {
        Route route = new Route(method.name(), path, queryParams, access);
        for (Route r : routes) {
            if (r.method().equals(route.method()) && r.openApiPath().equals(route.openApiPath())) {
                throw new IllegalArgumentException("Route " + method + " " + path + " is registered twice");
            }
        }
        routes.add(route);
        Set<String> allowed = Set.copyOf(queryParams);
        javalin.addHttpHandler(method, path, ctx -> {
            if (access == Access.TOKEN) {
                auth.check(ctx.header("Authorization"));
            }
            for (String name : ctx.queryParamMap().keySet()) {
                if (!allowed.contains(name)) {
                    throw RestException.badRequest("Unknown query parameter '" + name + "' for " + method + " " + path
                            + (allowed.isEmpty() ? ", which takes none" : "; it takes " + String.join(", ", queryParams)));
                }
            }
            handler.handle(ctx);
        });
        return this;
    }

    /**
     * The request body, read on the request thread, at most {@code rest.max-request-size} bytes
     * (413 beyond, also for a body sent without a declared length).
     */
    public byte[] body(Context ctx) throws java.io.IOException {
        try (java.io.InputStream in = ctx.req().getInputStream()) {
            byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxRequestBytes + 1));
            if (bytes.length > maxRequestBytes) {
                throw new RestException(413, "The request body is larger than this server accepts (" + maxRequestBytes
                        + " bytes, " + RestOptions.MAX_REQUEST_SIZE.key() + ")");
            }
            return bytes;
        }
    }

    /** Every route registered so far, in registration order. */
    public List<Route> routes() {
        return List.copyOf(routes);
    }

    /**
     * Answers the request with {@code status} and the JSON of the value {@code future} yields, or the
     * error it fails with. The answer is written on a request thread, whatever thread completes the
     * future; a future that does not complete within the answer timeout is answered 503.
     */
    public <T> void json(Context ctx, CompletableFuture<T> future, int status) {
        json(ctx, future, status, answerTimeout);
    }

    /** Like {@link #json(Context, CompletableFuture, int)}, waiting up to {@code timeout} instead of the answer timeout. */
    public <T> void json(Context ctx, CompletableFuture<T> future, int status, Duration timeout) {
        ctx.future(() -> future.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .handleAsync((value, error) -> {
                    if (error != null) {
                        throw new CompletionException(timeoutToUnavailable(Futures.unwrap(error), timeout));
                    }
                    ctx.status(status).json(value);
                    return null;
                }, responseExecutor));
    }

    private static Throwable timeoutToUnavailable(Throwable error, Duration timeout) {
        if (error instanceof TimeoutException) {
            return new RestException(503, "The cluster did not answer within " + timeout.toMillis()
                    + " ms; it may be overloaded or shutting down. Retry later and check the cluster log.");
        }
        return error;
    }
}
