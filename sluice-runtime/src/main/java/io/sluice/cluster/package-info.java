/**
 * The in-JVM cluster ({@code LocalCluster}) and the {@code JobExecutor} that runs {@code execute}
 * on it: a composition root.
 *
 * <p>Layer 15 of 15 in sluice-runtime (composition roots; docs/architecture.md). May use the
 * packages of the layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code rpc.remote},
 * {@code storage}, {@code network}, {@code network.netty}, {@code job}, {@code checkpoint}, {@code
 * protocol}, {@code jar}, {@code slots}, {@code ha}, {@code ha.embedded}, {@code ha.memory},
 * {@code ha.loader}, {@code checkpoint.coordinator}, {@code taskexecutor}, {@code metrics.job},
 * {@code jobmaster}, {@code dispatcher}, {@code cluster.membership}, and of its own layer: {@code
 * cluster.process}. Uses today: {@code checkpoint}, {@code dispatcher}, {@code ha}, {@code
 * ha.embedded}, {@code ha.loader}, {@code ha.memory}, {@code jar}, {@code job}, {@code jobmaster},
 * {@code network}, {@code network.netty}, {@code protocol}, {@code rpc}, {@code rpc.remote},
 * {@code slots}, {@code storage}, {@code taskexecutor}. Never a package of a layer above; no
 * cycles (the module's architecture test checks both).
 */
package io.sluice.cluster;
