package io.sluice.rest;

import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.sluice.cluster.process.NoLongerLeaderException;
import io.sluice.concurrent.Futures;
import io.sluice.protocol.JobSubmissionException;
import io.sluice.protocol.UnknownJobException;
import io.sluice.rpc.remote.FencingTokenMismatchException;
import io.sluice.rpc.remote.RpcConnectionException;
import io.sluice.rpc.remote.RpcTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns every failure of a request into a status and an {@link ErrorResponse}: the server never
 * answers with a stack trace or an HTML page, and an unexpected error is logged and answered 500.
 * Stateless; any thread.
 */
public final class RestErrors {
    private static final Logger LOG = LoggerFactory.getLogger(RestErrors.class);

    private RestErrors() {}

    /** The status and message for {@code failure}. */
    static ErrorResponse describe(Throwable failure, Context ctx) {
        Throwable t = Futures.unwrap(failure);
        if (t instanceof RestException e) {
            return new ErrorResponse(e.getMessage(), e.status());
        }
        if (t instanceof UnknownJobException) {
            return new ErrorResponse(t.getMessage() + ". List the known jobs with GET /v1/jobs.", 404);
        }
        if (t instanceof JobSubmissionException) {
            return new ErrorResponse("The job was rejected: " + t.getMessage(), 400);
        }
        if (t instanceof NoLongerLeaderException || t instanceof FencingTokenMismatchException) {
            // A standby forwarded to a leader that was just deposed: a failover is in progress.
            return new ErrorResponse(t.getMessage() + " (a job manager failover is in progress; retry in a moment)", 503);
        }
        if (t instanceof RpcConnectionException || t instanceof RpcTimeoutException) {
            // The job manager this one forwards to (or asks) cannot be reached: it may just have died,
            // and leadership moves on after its ZooKeeper session expires. One line, no stack trace.
            LOG.warn("REST request {} {}: {}", ctx == null ? "?" : ctx.method(), ctx == null ? "?" : ctx.path(),
                    t.getMessage());
            return new ErrorResponse(t.getMessage() + " (if that job manager just stopped, a failover is in progress;"
                    + " retry in a moment)", 503);
        }
        if (t instanceof HttpResponseException e) {
            return fromJavalin(e, ctx);
        }
        if (t instanceof io.sluice.checkpoint.CheckpointException) {
            // A savepoint that failed (a task declined, storage, the timeout): the job is unchanged.
            return new ErrorResponse(t.getMessage(), 409);
        }
        if (t instanceof IllegalArgumentException) {
            return new ErrorResponse(t.getMessage(), 400);
        }
        if (t instanceof IllegalStateException) {
            return new ErrorResponse(t.getMessage(), 409);
        }
        LOG.warn("REST request {} {} failed unexpectedly", ctx.method(), ctx.path(), t);
        return new ErrorResponse("Internal error while answering " + ctx.method() + " " + ctx.path() + " ("
                + t.getClass().getSimpleName() + ": " + t.getMessage() + "); see the cluster log", 500);
    }

    private static ErrorResponse fromJavalin(HttpResponseException e, Context ctx) {
        return switch (e.getStatus()) {
            case 404 -> new ErrorResponse("No endpoint " + ctx.method() + " " + ctx.path()
                    + "; the endpoints are listed in GET /v1/openapi.json", 404);
            case 405 -> new ErrorResponse("Method " + ctx.method() + " is not allowed on " + ctx.path()
                    + "; the methods of each endpoint are listed in GET /v1/openapi.json", 405);
            case 413 -> new ErrorResponse("The request body is larger than this server accepts (rest.max-request-size)", 413);
            default -> new ErrorResponse(e.getMessage() == null || e.getMessage().isBlank()
                    ? "Request refused (HTTP " + e.getStatus() + ")" : e.getMessage(), e.getStatus());
        };
    }

    /** Writes the error answer for {@code failure}. */
    public static void answer(Throwable failure, Context ctx) {
        ErrorResponse body = describe(failure, ctx);
        if (body.status() == 401) {
            ctx.header("WWW-Authenticate", "Bearer realm=\"sluice\"");
        }
        if (body.status() == 413) {
            // The rest of the body is not read: say that the connection ends, so clients do not reuse it.
            ctx.header("Connection", "close");
        }
        ctx.status(body.status()).json(body);
    }
}
