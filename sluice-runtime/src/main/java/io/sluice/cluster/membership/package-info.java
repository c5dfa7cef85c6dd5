/**
 * Membership: task executors registering with the job manager, heartbeats, and the task manager's
 * connection to the leading job manager.
 *
 * <p>Layer 14 of 15 in sluice-runtime (dispatcher and membership; docs/architecture.md). May use
 * the packages of the layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code
 * rpc.remote}, {@code storage}, {@code network}, {@code network.netty}, {@code job}, {@code
 * checkpoint}, {@code protocol}, {@code jar}, {@code slots}, {@code ha}, {@code ha.embedded},
 * {@code ha.memory}, {@code ha.loader}, {@code checkpoint.coordinator}, {@code taskexecutor},
 * {@code metrics.job}, {@code jobmaster}, and of its own layer: {@code dispatcher}. Uses today:
 * {@code ha}, {@code protocol}, {@code rpc}, {@code rpc.remote}, {@code slots}. Never a package of
 * a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.cluster.membership;
