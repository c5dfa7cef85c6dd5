/**
 * The heap keyed-state backend: key groups, copy-on-write state maps, and keyed-state snapshots
 * (their format, writer and reader).
 *
 * <p>Layer 7 of 11 in sluice-core (keyed state backend; docs/architecture.md). May use the
 * packages of the layers below: {@code util}, {@code config}, {@code api.errors}, {@code
 * api.tuple}, {@code api.eventtime}, {@code api.windowing}, {@code core.serialization}, {@code
 * api.state}, {@code api.functions}, {@code api.source}, {@code api.sink}. Uses today: {@code
 * api.errors}, {@code api.state}, {@code core.serialization}. Never a package of a layer above; no
 * cycles (the module's architecture test checks both).
 */
package io.sluice.state;
