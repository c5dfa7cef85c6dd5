package io.sluice.taskexecutor;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.network.ShuffleEnvironment;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.util.Clock;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

/**
 * What a task gets from its task executor: everything it uses that outlives it. Immutable; made on
 * the task executor's main thread, read by the task thread and the I/O threads of its uploads.
 *
 * @param jobMaster           the job master that deployed the task: checkpoint acknowledgements and
 *                            declines go here (state changes go through {@code stateListener})
 * @param shuffle             where the task's channels come from
 * @param checkpointStorage   where its state files are written and read (the job's checkpoint location)
 * @param ioExecutor          runs the asynchronous part of its checkpoints (serialize, write, acknowledge)
 * @param localState          the task executor's task-local copies, or {@code null} without any; a job
 *                            that turned task-local recovery off does not use them either
 * @param stateListener       hears the task's reported states in order, from the thread that changed
 *                            it; must not block (the task executor hops onto its main thread)
 * @param userCodeClassLoader loads the job's user code; the task thread's context class loader
 * @param clock               processing time for the operators (timers, periodic watermarks, idleness)
 * @param keyedStateBackends  creates the keyed state backend of a task with keyed state (the seam for
 *                            other backends: {@link KeyedStateBackendFactory})
 */
record TaskServices(JobMasterGateway jobMaster, ShuffleEnvironment shuffle, CheckpointStorage checkpointStorage,
                    ExecutorService ioExecutor, TaskLocalStateStore localState,
                    Consumer<TaskExecutionState> stateListener, ClassLoader userCodeClassLoader, Clock clock,
                    KeyedStateBackendFactory keyedStateBackends) {
    TaskServices {
        Objects.requireNonNull(jobMaster, "jobMaster");
        Objects.requireNonNull(shuffle, "shuffle");
        Objects.requireNonNull(ioExecutor, "ioExecutor");
        Objects.requireNonNull(stateListener, "stateListener");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(keyedStateBackends, "keyedStateBackends");
    }
}
