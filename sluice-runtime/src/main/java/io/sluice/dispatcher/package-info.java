/**
 * The dispatcher: accepts, recovers, lists and cancels jobs, one record per job and one job manager
 * runner per running job.
 *
 * <p>Layer 14 of 15 in sluice-runtime (dispatcher and membership; docs/architecture.md). May use
 * the packages of the layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code
 * rpc.remote}, {@code storage}, {@code network}, {@code network.netty}, {@code job}, {@code
 * checkpoint}, {@code protocol}, {@code jar}, {@code slots}, {@code ha}, {@code ha.embedded},
 * {@code ha.memory}, {@code ha.loader}, {@code checkpoint.coordinator}, {@code taskexecutor},
 * {@code metrics.job}, {@code jobmaster}, {@code jobmaster.runner}, and of its own layer: {@code
 * cluster.membership}. Uses today: {@code checkpoint}, {@code ha}, {@code jar}, {@code job}, {@code
 * jobmaster}, {@code jobmaster.runner}, {@code protocol}, {@code rpc}, {@code slots}. Never a
 * package of a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.dispatcher;
