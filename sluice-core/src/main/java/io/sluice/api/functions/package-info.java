/**
 * The interfaces of user functions (map, flat map, filter, reduce, aggregate, keyed and window
 * process functions, sinks, key selectors), their {@code RuntimeContext}, and {@code OutputTag}
 * for side outputs.
 *
 * <p>Layer 5 of 11 in sluice-core (user functions; docs/architecture.md). May use the packages of
 * the layers below: {@code util}, {@code config}, {@code api.errors}, {@code api.tuple}, {@code
 * api.eventtime}, {@code api.windowing}, {@code core.serialization}, {@code api.state}. Uses
 * today: {@code api.state}, {@code api.windowing}, {@code core.serialization}. Never a package of
 * a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.api.functions;
