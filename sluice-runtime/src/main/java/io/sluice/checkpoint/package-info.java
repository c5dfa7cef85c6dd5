/**
 * The checkpoint model and stores: completed checkpoints, task state handles, checkpoint metadata
 * and state file formats, checkpoint storage and its registry, the completed-checkpoint store, id
 * counters, retention, statistics and failure reasons.
 *
 * <p>Layer 6 of 15 in sluice-runtime (checkpoint model and stores; docs/architecture.md). May use
 * the packages of the layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code
 * rpc.remote}, {@code storage}, {@code network}, {@code network.netty}, {@code job}. Uses today:
 * {@code job}, {@code storage}. Never a package of a layer above; no cycles (the module's
 * architecture test checks both).
 */
package io.sluice.checkpoint;
