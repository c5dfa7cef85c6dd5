/**
 * Meter groups and metric names shared by every component, and the back-pressure ratio.
 *
 * <p>Layer 1 of 15 in sluice-runtime (main threads, restart policies, meters;
 * docs/architecture.md). The lowest layer: may use only {@code rpc}, {@code restart} of this
 * module. Uses no other package of this module today. Never a package of a layer above; no cycles
 * (the module's architecture test checks both).
 */
package io.sluice.metrics;
