package io.sluice.taskexecutor;

import io.sluice.state.HeapKeyedStateBackend;
import io.sluice.state.KeyedStateBackend;

/**
 * Creates the keyed state backend of a task with keyed state: the seam where a state backend
 * other than the heap plugs in.
 *
 * <p>Who calls it: the task thread, once per task attempt with keyed state, while the task is
 * {@code DEPLOYING} ({@code TaskStateRestore.keyedStateBackend}); the task then restores the returned
 * (empty) backend from the checkpoint's keyed-state handles with {@link KeyedStateBackend#restore}
 * before any operator opens, snapshots it on the task thread at each barrier
 * ({@link KeyedStateBackend#snapshot}) and writes the snapshot on an I/O thread. The task executor
 * gets one factory ({@link TaskExecutor}'s constructor; {@link #heap()} by default) and hands it to
 * every task, so choosing a backend per job means a factory that looks at
 * {@link KeyedStateBackendSpec#jobConfig()} (or at the task executor's configuration, such as a
 * {@code state.backend} option) and delegates. A backend that is {@link AutoCloseable} is closed
 * on the task thread when the task ends, after its operators (finished, failed or cancelled): that
 * is where native resources and local files are released; nothing of the job (its class loader)
 * may stay referenced after it.
 *
 * <p>Implementations are thread-safe: one factory serves every task of a task executor.
 */
@FunctionalInterface
public interface KeyedStateBackendFactory {

    /** A new, empty backend for the key groups of {@code spec}. Throws if it cannot be created (the task fails). */
    KeyedStateBackend create(KeyedStateBackendSpec spec);

    /**
     * The backend each job names ({@code state.backend}, else the task executor's default) from
     * {@code backends}, with the task's memory charged to its slot (named by job and subtask index: slot
     * sharing puts the subtasks with one index of a job's vertices in one slot) and the job's choice of
     * incremental checkpoints ({@code state.backend.incremental}).
     */
    static KeyedStateBackendFactory of(io.sluice.state.StateBackends backends) {
        java.util.Objects.requireNonNull(backends, "backends");
        return spec -> backends.backend(spec.jobConfig().stateBackend()).createKeyedStateBackend(
                new io.sluice.state.KeyedStateBackendParameters(spec.taskName(),
                        spec.jobId().value() + "/" + spec.subtaskIndex(), spec.keyGroupRange(), spec.maxParallelism(),
                        spec.keySerializer(), spec.clock(), spec.jobConfig().incrementalCheckpoints(),
                        spec.jobConfig().localRecovery()));
    }

    /** The heap backend: state in Java objects, copy-on-write snapshots ({@link HeapKeyedStateBackend}). */
    static KeyedStateBackendFactory heap() {
        return spec -> new HeapKeyedStateBackend(spec.keyGroupRange(), spec.maxParallelism(), spec.keySerializer());
    }
}
