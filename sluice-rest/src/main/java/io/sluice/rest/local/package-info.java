/**
 * The REST backend over an in-JVM {@code LocalCluster}.
 *
 * <p>Layer 5 of 6 in sluice-rest (backends; docs/architecture.md). May use the packages of the
 * layers below: {@code rest.model}, {@code rest}, {@code rest.jars}, {@code rest.routes}, {@code
 * rest.metrics}, {@code rest.dashboard}, and of its own layer: {@code rest.gateway}. Uses today:
 * {@code rest}, {@code rest.gateway}, {@code rest.jars}. Never a package of a layer above; no
 * cycles (the module's architecture test checks both).
 */
package io.sluice.rest.local;
