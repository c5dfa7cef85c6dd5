/**
 * The stream operators that run user functions (map, filter, flat map, reduce, keyed process,
 * timestamps and watermarks, sink), their context and output.
 *
 * <p>Layer 8 of 11 in sluice-core (operators; docs/architecture.md). May use the packages of the
 * layers below: {@code util}, {@code config}, {@code api.errors}, {@code api.tuple}, {@code
 * api.eventtime}, {@code api.windowing}, {@code core.serialization}, {@code api.state}, {@code
 * api.functions}, {@code api.source}, {@code api.sink}, {@code state}, and of its own layer:
 * {@code operators.timers}, {@code operators.windowing}. Uses today: {@code api.eventtime}, {@code
 * api.functions}, {@code api.state}, {@code core.serialization}, {@code operators.timers}, {@code
 * state}, {@code util}. Never a package of a layer above; no cycles (the module's architecture
 * test checks both).
 */
package io.sluice.operators;
