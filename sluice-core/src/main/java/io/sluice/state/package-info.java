/**
 * Keyed state backends: the seam through which a task gets its keyed state ({@code StateBackend},
 * found by name through {@code StateBackendFactory} services and kept per task executor by
 * {@code StateBackends}; {@code KeyedStateBackend} per task), the heap backend (copy-on-write state
 * maps), key groups, and the canonical keyed-state snapshot format that every backend writes and
 * reads ({@code KeyedSnapshotFormat}, {@code KeyedSnapshotWriter}, {@code KeyedSnapshotReader},
 * {@code StateMetaInfo}, {@code StateRegistration}).
 *
 * <p>Layer 7 of 11 in sluice-core (keyed state backend; docs/architecture.md). May use the
 * packages of the layers below: {@code util}, {@code config}, {@code api.errors}, {@code
 * api.tuple}, {@code api.eventtime}, {@code api.windowing}, {@code core.serialization}, {@code
 * api.state}, {@code api.functions}, {@code api.source}, {@code api.sink}. Uses today: {@code
 * api.errors}, {@code api.state}, {@code config}, {@code core.serialization}, {@code util}. Never a
 * package of a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.state;
