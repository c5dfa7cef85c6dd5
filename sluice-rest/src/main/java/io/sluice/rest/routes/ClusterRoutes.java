package io.sluice.rest.routes;

import io.sluice.rest.RestBackend;
import io.sluice.rest.RestRouter;
import io.sluice.rest.RestRoutes;

/** {@code GET /v1/overview}: version, leader, task executors, slots and job counts. */
public final class ClusterRoutes implements RestRoutes {
    private final RestBackend backend;

    public ClusterRoutes(RestBackend backend) {
        this.backend = backend;
    }

    @Override
    public void register(RestRouter r) {
        r.get("/v1/overview", ctx -> r.json(ctx, backend.overview(), 200));
    }
}
