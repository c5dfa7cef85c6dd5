/**
 * Sources: the {@code Source} interface, its readers and positions, and the built-in sequence,
 * collection and text file sources.
 *
 * <p>Layer 6 of 11 in sluice-core (sources and sinks; docs/architecture.md). May use the packages
 * of the layers below: {@code util}, {@code config}, {@code api.errors}, {@code api.tuple}, {@code
 * api.eventtime}, {@code api.windowing}, {@code core.serialization}, {@code api.state}, {@code
 * api.functions}, and of its own layer: {@code api.sink}. Uses today: {@code api.functions},
 * {@code core.serialization}. Never a package of a layer above; no cycles (the module's
 * architecture test checks both).
 */
package io.sluice.api.source;
