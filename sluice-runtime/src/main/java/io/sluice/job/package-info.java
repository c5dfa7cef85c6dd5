/**
 * The identity and states of a job and of its subtask attempts, used from the checkpoint layer up:
 * {@code JobStatus}, {@code JobResult}, {@code ExecutionAttemptId}, {@code ExecutionState}.
 *
 * <p>Layer 5 of 15 in sluice-runtime (job and attempt identities; docs/architecture.md). May use
 * the packages of the layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code
 * rpc.remote}, {@code storage}, {@code network}, {@code network.netty}. Uses today: {@code
 * rpc.remote}. Never a package of a layer above; no cycles (the module's architecture test checks
 * both).
 */
package io.sluice.job;
