/**
 * Deployment rounds of a job master: the executions of the current round and their states as the
 * tasks report them ({@code DeploymentRound}), deploying, cancelling and releasing a round ({@code
 * TaskDeployer}), what each subtask restores, and the slots of the next deployment with the wait
 * for them on a dynamic pool ({@code SlotAssignment}). All confined to the job master's main
 * thread.
 *
 * <p>Layer 12 of 15 in sluice-runtime (job master; docs/architecture.md), below {@code jobmaster},
 * which uses it. May use the packages of the layers below: {@code rpc}, {@code restart}, {@code
 * metrics}, {@code security.tls}, {@code rpc.remote}, {@code storage}, {@code network}, {@code
 * network.netty}, {@code job}, {@code checkpoint}, {@code protocol}, {@code jar}, {@code slots},
 * {@code ha}, {@code ha.embedded}, {@code ha.memory}, {@code ha.loader}, {@code
 * checkpoint.coordinator}, {@code taskexecutor}, {@code metrics.job}, and {@code
 * jobmaster.lifecycle} of its own layer; never {@code jobmaster} (that would be a cycle). Uses
 * today: {@code checkpoint}, {@code checkpoint.coordinator}, {@code job}, {@code protocol}, {@code
 * rpc}, {@code slots}. Never a package of a layer above; no cycles (the module's architecture test
 * checks both).
 */
package io.sluice.jobmaster.deployment;
