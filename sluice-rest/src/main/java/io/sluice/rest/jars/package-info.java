/**
 * Uploaded job jars: the local jar directory and the runner that runs a jar's program.
 *
 * <p>Layer 3 of 6 in sluice-rest (jar handling; docs/architecture.md). May use the packages of the
 * layers below: {@code rest.model}, {@code rest}. Uses today: {@code rest}, {@code rest.model}.
 * Never a package of a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.rest.jars;
