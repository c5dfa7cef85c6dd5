/**
 * The HTTP server (Javalin on Jetty): listens, registers the built-in and extra route groups,
 * answers errors as JSON, limits request sizes.
 *
 * <p>Layer 6 of 6 in sluice-rest (server; docs/architecture.md). May use the packages of the
 * layers below: {@code rest.model}, {@code rest}, {@code rest.jars}, {@code rest.routes}, {@code
 * rest.metrics}, {@code rest.dashboard}, {@code rest.gateway}, {@code rest.local}. Uses today:
 * {@code rest}, {@code rest.metrics}, {@code rest.routes}. Never a package of a layer above; no
 * cycles (the module's architecture test checks both).
 */
package io.sluice.rest.server;
