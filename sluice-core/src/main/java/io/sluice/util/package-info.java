/**
 * Clocks: the {@code Clock} that operators and the runtime are given (never the system clock
 * directly), and {@code SystemClock}. A fake clock for tests lives in sluice-core's test jar.
 * Also {@code Throwables} (an exception's root cause).
 *
 * <p>Layer 1 of 11 in sluice-core (foundations; docs/architecture.md). The lowest layer: may use
 * only {@code config}, {@code api.errors}, {@code api.tuple} of this module (not {@code concurrent},
 * which uses it). Uses no other package of this module today. Never a package of a layer above; no cycles (the module's architecture
 * test checks both).
 */
package io.sluice.util;
