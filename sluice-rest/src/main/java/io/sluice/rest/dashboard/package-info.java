/**
 * The web dashboard's routes.
 *
 * <p>Layer 4 of 6 in sluice-rest (route groups; docs/architecture.md). May use the packages of the
 * layers below: {@code rest.model}, {@code rest}, {@code rest.jars}, and of its own layer: {@code
 * rest.routes}, {@code rest.metrics}. Uses today: {@code rest}. Never a package of a layer above;
 * no cycles (the module's architecture test checks both).
 */
package io.sluice.rest.dashboard;
