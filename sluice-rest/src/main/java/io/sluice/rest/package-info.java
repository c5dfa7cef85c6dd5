/**
 * What the REST API needs from a cluster ({@code RestBackend}, {@code ClusterOverview}, {@code
 * RunRequest}, {@code RestException}), the routing every route group registers on ({@code
 * RestRouter}, {@code RestRoutes}, the bearer token check, error answers), and the server's
 * configuration and options.
 *
 * <p>Layer 2 of 6 in sluice-rest (backend contract and routing; docs/architecture.md). May use the
 * packages of the layers below: {@code rest.model}. Uses today: {@code rest.model}. Never a
 * package of a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.rest;
