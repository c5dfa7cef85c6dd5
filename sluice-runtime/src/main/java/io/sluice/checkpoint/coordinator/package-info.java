/**
 * The checkpoint coordinator of a job: triggers checkpoints, collects the tasks' acknowledgements
 * into pending checkpoints, completes and retains them, and pins the checkpoint a deployment
 * restores from. {@code CheckpointCoordinator} is the entry point; each step is a piece of its own
 * ({@code PeriodicTrigger}, {@code CheckpointIdRequests}, {@code PendingCheckpoints}, {@code
 * CheckpointFinalizer}, {@code CheckpointFailures}, {@code CheckpointStatsTracker}, {@code
 * CheckpointDiscarder}, {@code AbandonedUploads}), all confined to the job master's main thread
 * (each checks it), with their storage calls on the I/O executor.
 *
 * <p>Layer 11 of 15 in sluice-runtime (checkpoint coordination, task execution, job metrics;
 * docs/architecture.md). May use the packages of the layers below: {@code rpc}, {@code restart},
 * {@code metrics}, {@code rpc.remote}, {@code storage}, {@code network}, {@code network.netty},
 * {@code job}, {@code checkpoint}, {@code protocol}, {@code jar}, {@code slots}, {@code ha},
 * {@code ha.embedded}, {@code ha.memory}, {@code ha.loader}, and of its own layer: {@code
 * taskexecutor}, {@code metrics.job}. Uses today: {@code checkpoint}, {@code ha}, {@code job},
 * {@code rpc}. Never a package of a layer above; no cycles (the module's architecture test checks
 * both).
 */
package io.sluice.checkpoint.coordinator;
