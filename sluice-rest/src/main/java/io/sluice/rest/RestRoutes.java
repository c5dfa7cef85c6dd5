package io.sluice.rest;

/**
 * A group of routes (for example all {@code /v1/jobs} endpoints). {@link io.sluice.rest.server.RestServer} calls
 * {@link #register} once, while it assembles the server, before it listens.
 */
@FunctionalInterface
public interface RestRoutes {
    void register(RestRouter router);
}
