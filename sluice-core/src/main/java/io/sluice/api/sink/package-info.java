/**
 * Built-in sinks (print, discard, the at-least-once and the exactly-once file sinks) and the
 * two-phase-commit sink contract ({@link io.sluice.api.sink.TwoPhaseCommitSink}, its writer and committer).
 *
 * <p>Layer 6 of 11 in sluice-core (sources and sinks; docs/architecture.md). May use the packages
 * of the layers below: {@code util}, {@code config}, {@code api.errors}, {@code api.tuple}, {@code
 * api.eventtime}, {@code api.windowing}, {@code core.serialization}, {@code api.state}, {@code
 * api.functions}, and of its own layer: {@code api.source}. Uses today: {@code api.functions}, {@code core.serialization}, {@code util}.
 * Never a package of a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.api.sink;
