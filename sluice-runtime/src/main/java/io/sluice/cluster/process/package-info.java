/**
 * The job manager and task manager processes: composition roots that wire RPC, HA, storage, the
 * dispatcher and the task executor, and check the settings the processes share.
 *
 * <p>Layer 15 of 15 in sluice-runtime (composition roots; docs/architecture.md). May use the
 * packages of the layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code rpc.remote},
 * {@code storage}, {@code network}, {@code network.netty}, {@code job}, {@code checkpoint}, {@code
 * protocol}, {@code jar}, {@code slots}, {@code ha}, {@code ha.embedded}, {@code ha.memory},
 * {@code ha.loader}, {@code checkpoint.coordinator}, {@code taskexecutor}, {@code metrics.job},
 * {@code jobmaster}, {@code dispatcher}, {@code cluster.membership}, and of its own layer: {@code
 * cluster}. Uses today: {@code checkpoint}, {@code cluster.membership}, {@code dispatcher}, {@code
 * ha}, {@code ha.loader}, {@code jar}, {@code job}, {@code jobmaster}, {@code network}, {@code
 * network.netty}, {@code protocol}, {@code rpc}, {@code rpc.remote}, {@code slots}, {@code
 * taskexecutor}. Never a package of a layer above; no cycles (the module's architecture test
 * checks both).
 */
package io.sluice.cluster.process;
