/**
 * The REST backend over a dispatcher gateway, and the views of the cluster it reports.
 *
 * <p>Layer 5 of 6 in sluice-rest (backends; docs/architecture.md). May use the packages of the
 * layers below: {@code rest.model}, {@code rest}, {@code rest.jars}, {@code rest.routes}, {@code
 * rest.metrics}, {@code rest.dashboard}, and of its own layer: {@code rest.local}. Uses today:
 * {@code rest}, {@code rest.jars}, {@code rest.model}. Never a package of a layer above; no cycles
 * (the module's architecture test checks both).
 */
package io.sluice.rest.gateway;
