/**
 * {@code Tuple2} and {@code Tuple3}: the tuple records of the public API, which the serializers
 * know without type hints.
 *
 * <p>Layer 1 of 11 in sluice-core (foundations; docs/architecture.md). The lowest layer: may use
 * only {@code util}, {@code config}, {@code api.errors} of this module. Uses no other package of
 * this module today. Never a package of a layer above; no cycles (the module's architecture test
 * checks both).
 */
package io.sluice.api.tuple;
