/**
 * Typed configuration: {@code ConfigOption}s, {@code Configuration}, the option groups of every
 * component, their validation and generated documentation; durations as text in the configuration
 * and the display form ({@code Durations}).
 *
 * <p>Layer 1 of 11 in sluice-core (foundations; docs/architecture.md). The lowest layer: may use
 * only {@code util}, {@code api.errors}, {@code api.tuple} of this module (not {@code concurrent},
 * which uses it). Uses no other package of this module today. Never a package of a layer above; no cycles (the module's architecture
 * test checks both).
 */
package io.sluice.config;
