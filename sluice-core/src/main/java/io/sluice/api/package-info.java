/**
 * The DataStream API: {@code StreamExecutionEnvironment}, {@code DataStream}, keyed and windowed
 * streams, and the translation of a program into a job graph.
 *
 * <p>Layer 11 of 11 in sluice-core (DataStream API; docs/architecture.md). May use the packages of
 * the layers below: {@code util}, {@code config}, {@code api.errors}, {@code api.tuple}, {@code
 * api.eventtime}, {@code api.windowing}, {@code core.serialization}, {@code api.state}, {@code
 * api.functions}, {@code api.source}, {@code api.sink}, {@code state}, {@code operators.timers},
 * {@code operators}, {@code operators.windowing}, {@code graph}, {@code api.execution}. Uses
 * today: {@code api.errors}, {@code api.eventtime}, {@code api.execution}, {@code api.functions},
 * {@code api.sink}, {@code api.source}, {@code api.windowing}, {@code config}, {@code
 * core.serialization}, {@code graph}, {@code operators}, {@code operators.windowing}. Never a
 * package of a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.api;
