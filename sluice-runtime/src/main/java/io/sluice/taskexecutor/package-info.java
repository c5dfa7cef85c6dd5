/**
 * The task executor and its tasks. {@code TaskExecutor} keeps the table of tasks on its main
 * thread; a {@code Task} runs one subtask on its own thread and puts together its parts: its
 * services ({@code TaskServices}), its lifecycle ({@code TaskLifecycle}), channels, outputs and
 * inputs, the operator chain ({@code OperatorChain}), restore ({@code TaskStateRestore}),
 * checkpoints ({@code SubtaskCheckpointer}) and the record loop ({@code RecordDriver}). Extension
 * points: {@code KeyedStateBackendFactory} (the keyed state backend of a task) and the checkpoint
 * calls of {@code io.sluice.operators.StreamOperator}. Task metrics and task-local state copies.
 *
 * <p>Layer 11 of 15 in sluice-runtime (checkpoint coordination, task execution, job metrics;
 * docs/architecture.md). May use the packages of the layers below: {@code rpc}, {@code restart},
 * {@code metrics}, {@code rpc.remote}, {@code storage}, {@code network}, {@code network.netty},
 * {@code job}, {@code checkpoint}, {@code protocol}, {@code jar}, {@code slots}, {@code ha},
 * {@code ha.embedded}, {@code ha.memory}, {@code ha.loader}, and of its own layer: {@code
 * checkpoint.coordinator}, {@code metrics.job}. Uses today: {@code checkpoint}, {@code jar},
 * {@code job}, {@code metrics}, {@code network}, {@code protocol}, {@code rpc}. Never a package of
 * a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.taskexecutor;
