/**
 * Restart strategies (fixed delay, exponential delay, failure rate, none) and the tracking of
 * restarts.
 *
 * <p>Layer 1 of 15 in sluice-runtime (main threads, restart policies, meters;
 * docs/architecture.md). The lowest layer: may use only {@code rpc}, {@code metrics} of this
 * module. Uses no other package of this module today. Never a package of a layer above; no cycles
 * (the module's architecture test checks both).
 */
package io.sluice.restart;
