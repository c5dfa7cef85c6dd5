/**
 * Main-thread execution: the single thread each component's state belongs to ({@code
 * MainThreadExecutor}, {@code MainThreads} with its assertions), and {@code Acknowledge}.
 *
 * <p>Layer 1 of 15 in sluice-runtime (main threads, restart policies, meters;
 * docs/architecture.md). The lowest layer: may use only {@code restart}, {@code metrics} of this
 * module. Uses no other package of this module today. Never a package of a layer above; no cycles
 * (the module's architecture test checks both).
 */
package io.sluice.rpc;
