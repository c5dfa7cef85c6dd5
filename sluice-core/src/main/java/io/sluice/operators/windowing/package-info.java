/**
 * The window operator and the contents it keeps per window.
 *
 * <p>Layer 8 of 11 in sluice-core (operators; docs/architecture.md). May use the packages of the
 * layers below: {@code util}, {@code config}, {@code api.errors}, {@code api.tuple}, {@code
 * api.eventtime}, {@code api.windowing}, {@code core.serialization}, {@code api.state}, {@code
 * api.functions}, {@code api.source}, {@code api.sink}, {@code state}, and of its own layer:
 * {@code operators.timers}, {@code operators}. Uses today: {@code api.eventtime}, {@code
 * api.functions}, {@code api.state}, {@code api.windowing}, {@code core.serialization}, {@code
 * operators}, {@code operators.timers}, {@code state}, {@code util}. Never a package of a layer
 * above; no cycles (the module's architecture test checks both).
 */
package io.sluice.operators.windowing;
