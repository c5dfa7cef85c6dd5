package io.sluice.rest.routes;

import io.sluice.rest.RestRouter;
import io.sluice.rest.RestRoutes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /v1/openapi.json}: the OpenAPI 3.0 document of every route, kept as the resource
 * {@code io/sluice/rest/openapi.json} (read once, when the server is assembled) and checked against
 * the registered routes and their answers by {@code OpenApiDocumentTest}.
 */
public final class OpenApiRoutes implements RestRoutes {
    /** Classpath location of the document. */
    public static final String RESOURCE = "/io/sluice/rest/openapi.json";

    private final byte[] document;

    public OpenApiRoutes() {
        this.document = load();
    }

    public static byte[] load() {
        try (InputStream in = OpenApiRoutes.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("The OpenAPI document " + RESOURCE + " is missing from the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the OpenAPI document " + RESOURCE, e);
        }
    }

    @Override
    public void register(RestRouter r) {
        r.get("/v1/openapi.json", ctx -> ctx.contentType("application/json").result(document));
    }
}
