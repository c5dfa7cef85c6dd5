package io.sluice.rest.server;

import io.javalin.http.Context;
import io.sluice.rest.RestException;
import io.sluice.rest.RestOptions;
import io.sluice.rest.RestServerConfig;

/**
 * Refuses a request whose declared body is larger than the server accepts, before anything of it
 * is read: {@link RestServerConfig#maxUploadBytes()} for {@code POST /v1/jars}, else
 * {@link RestServerConfig#maxRequestBytes()}. Bodies without a declared length are limited where
 * they are read ({@link io.sluice.rest.RestRouter#body}, the multipart parser). Stateless; request threads.
 */
final class RequestLimits {
    static final String UPLOAD_PATH = "/v1/jars";

    private RequestLimits() {}

    static void check(Context ctx, RestServerConfig config) {
        long length = ctx.req().getContentLengthLong();
        if (length < 0) {
            return;
        }
        boolean upload = UPLOAD_PATH.equals(ctx.path());
        long limit = upload ? config.maxUploadBytes() : config.maxRequestBytes();
        if (length > limit) {
            throw new RestException(413, (upload ? "The upload" : "The request body") + " is " + length
                    + " bytes; this server accepts at most " + limit + " ("
                    + (upload ? RestOptions.MAX_UPLOAD_SIZE.key() : RestOptions.MAX_REQUEST_SIZE.key()) + ")");
        }
    }
}
