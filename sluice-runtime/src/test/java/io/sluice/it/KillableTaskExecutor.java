package io.sluice.it;

import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.cluster.membership.HeartbeatResponse;
import io.sluice.cluster.membership.RegistrationResponse;
import io.sluice.cluster.membership.TaskExecutorRegistration;
import io.sluice.cluster.membership.TaskExecutorRegistryGateway;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.rpc.Acknowledge;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.taskexecutor.TaskExecutor;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.protocol.TaskMetrics;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * A task executor as the job manager sees it over the network, which the test can kill as if its
 * process had died: from {@link #kill()} on, nothing crosses between it and the job manager in
 * either direction — no heartbeats or registrations (through {@link #link}), no deployments,
 * cancellations or checkpoint messages, no task reports or acknowledgements (its tasks' job master
 * gateway is wrapped). Futures of dropped requests never complete, as with a peer that went silent.
 * Its task threads are left to the test ({@link #stopTasks()}): they die with their channels when
 * the job master releases the deployment. Test code only. Thread-safe.
 */
final class KillableTaskExecutor implements TaskExecutorGateway {
    private final TaskExecutor taskExecutor;
    private volatile boolean dead;

    KillableTaskExecutor(TaskExecutor taskExecutor) {
        this.taskExecutor = taskExecutor;
    }

    /** From now on nothing crosses between this task executor and the job manager. */
    void kill() {
        dead = true;
    }

    /** Ends the task threads of a killed task executor (their reports are dropped). */
    CompletableFuture<Void> stopTasks() {
        return taskExecutor.cancelAll();
    }

    TaskExecutor taskExecutor() {
        return taskExecutor;
    }

    /** The registry as this task executor reaches it: silent once it is killed. */
    TaskExecutorRegistryGateway link(TaskExecutorRegistryGateway registry) {
        return new TaskExecutorRegistryGateway() {
            @Override
            public CompletableFuture<RegistrationResponse> registerTaskExecutor(TaskExecutorRegistration registration,
                                                                                TaskExecutorGateway gateway) {
                return dead ? new CompletableFuture<>() : registry.registerTaskExecutor(registration, gateway);
            }

            @Override
            public CompletableFuture<HeartbeatResponse> heartbeatFromTaskExecutor(String id, UUID registrationId) {
                return dead ? new CompletableFuture<>() : registry.heartbeatFromTaskExecutor(id, registrationId);
            }

            @Override
            public void disconnectTaskExecutor(String id, UUID registrationId, String reason) {
                if (!dead) {
                    registry.disconnectTaskExecutor(id, registrationId, reason);
                }
            }
        };
    }

    @Override
    public String id() {
        return taskExecutor.id();
    }

    @Override
    public int numberOfSlots() {
        return taskExecutor.numberOfSlots();
    }

    @Override
    public CompletableFuture<Acknowledge> submitTask(TaskDeploymentDescriptor descriptor, JobMasterGateway jobMaster) {
        return dead ? new CompletableFuture<>() : taskExecutor.submitTask(descriptor, new Silenced(jobMaster));
    }

    @Override
    public CompletableFuture<Acknowledge> cancelTask(ExecutionAttemptId task) {
        return dead ? new CompletableFuture<>() : taskExecutor.cancelTask(task);
    }

    @Override
    public void triggerCheckpoint(ExecutionAttemptId task, long checkpointId, long timestampMillis) {
        if (!dead) {
            taskExecutor.triggerCheckpoint(task, checkpointId, timestampMillis);
        }
    }

    @Override
    public void triggerSavepoint(ExecutionAttemptId task, long checkpointId, long timestampMillis, boolean stop) {
        if (!dead) {
            taskExecutor.triggerSavepoint(task, checkpointId, timestampMillis, stop);
        }
    }

    @Override
    public void notifyCheckpointComplete(ExecutionAttemptId task, long checkpointId) {
        if (!dead) {
            taskExecutor.notifyCheckpointComplete(task, checkpointId);
        }
    }

    @Override
    public CompletableFuture<List<TaskMetrics>> requestTaskMetrics(JobId jobId) {
        return dead ? new CompletableFuture<>() : taskExecutor.requestTaskMetrics(jobId);
    }

    /** The job master as this task executor's tasks reach it: silent once the task executor is killed. */
    private final class Silenced implements JobMasterGateway {
        private final JobMasterGateway jobMaster;

        Silenced(JobMasterGateway jobMaster) {
            this.jobMaster = jobMaster;
        }

        @Override
        public CompletableFuture<Acknowledge> updateTaskExecutionState(TaskExecutionState state) {
            return dead ? new CompletableFuture<>() : jobMaster.updateTaskExecutionState(state);
        }

        @Override
        public void acknowledgeCheckpoint(ExecutionAttemptId task, long checkpointId, TaskStateHandle state) {
            if (!dead) {
                jobMaster.acknowledgeCheckpoint(task, checkpointId, state);
            }
        }

        @Override
        public void declineCheckpoint(ExecutionAttemptId task, long checkpointId, Throwable reason) {
            if (!dead) {
                jobMaster.declineCheckpoint(task, checkpointId, reason);
            }
        }

        @Override
        public CompletableFuture<JobDetails> requestJobDetails() {
            return dead ? new CompletableFuture<>() : jobMaster.requestJobDetails();
        }

        @Override
        public CompletableFuture<Acknowledge> cancel() {
            return dead ? new CompletableFuture<>() : jobMaster.cancel();
        }
    }
}
