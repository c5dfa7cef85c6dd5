/**
 * The job master: one job's lifecycle, deployment, failover and restore fallback; the services a
 * job manager's jobs share ({@code JobManagerServices}) and the bound on recovery reads across them
 * ({@code RecoveryReads}). The job master's states are in {@code jobmaster.lifecycle}, its
 * deployment rounds and slots in {@code jobmaster.deployment}; the leadership of a job is {@code
 * jobmaster.runner}, one layer up.
 *
 * <p>Layer 12 of 15 in sluice-runtime (job master; docs/architecture.md). May use the packages of
 * the layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code rpc.remote}, {@code
 * storage}, {@code network}, {@code network.netty}, {@code job}, {@code checkpoint}, {@code
 * protocol}, {@code jar}, {@code slots}, {@code ha}, {@code ha.embedded}, {@code ha.memory},
 * {@code ha.loader}, {@code checkpoint.coordinator}, {@code taskexecutor}, {@code metrics.job}, and
 * of its own layer {@code jobmaster.lifecycle} and {@code jobmaster.deployment}. Uses today:
 * {@code checkpoint}, {@code checkpoint.coordinator}, {@code ha}, {@code jar}, {@code job}, {@code
 * jobmaster.deployment}, {@code jobmaster.lifecycle}, {@code metrics.job}, {@code protocol}, {@code
 * restart}, {@code rpc}, {@code rpc.remote}, {@code slots}, {@code storage}. Never a package of a
 * layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.jobmaster;
