/**
 * Keyed state as user functions see it: {@code ValueState}, {@code ListState}, {@code MapState}
 * and their descriptors.
 *
 * <p>Layer 4 of 11 in sluice-core (state descriptors; docs/architecture.md). May use the packages
 * of the layers below: {@code util}, {@code config}, {@code api.errors}, {@code api.tuple}, {@code
 * api.eventtime}, {@code api.windowing}, {@code core.serialization}. Uses today: {@code
 * core.serialization}. Never a package of a layer above; no cycles (the module's architecture test
 * checks both).
 */
package io.sluice.api.state;
