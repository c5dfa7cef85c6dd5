/**
 * State with a time-to-live on any backend: decorators over a backend's states of
 * {@code TimestampedValue}s that stamp writes and hide expired values on reads ({@code TtlStates}),
 * and the background clean-up that each backend drives with a cursor of its own
 * ({@code TtlCleaner}, {@code TtlCleanupTarget}).
 *
 * <p>Layer 7 of 11 in sluice-core (keyed state backend, beside {@code state}, which uses it;
 * docs/architecture.md). Uses today: {@code api.state}, {@code core.serialization}, {@code util}.
 * Never {@code state} nor a package of a layer above; no cycles (the module's architecture test
 * checks both).
 */
package io.sluice.state.ttl;
