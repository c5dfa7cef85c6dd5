package io.sluice.cluster.membership;

import io.sluice.rpc.remote.Unfenced;
import io.sluice.protocol.TaskExecutorGateway;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * How task executors register with the leading job manager and keep their registration alive.
 * Exposed on a job manager's RPC server as the endpoint {@value #ENDPOINT}.
 *
 * <p>Heartbeats: a registered task executor calls {@link #heartbeatFromTaskExecutor} every
 * {@code heartbeat.interval}; the job manager counts the request as the task executor's heartbeat
 * and its answer as its own. Either side that hears nothing for {@code heartbeat.timeout} counts the
 * other as lost.
 *
 * <p>Fencing: on a job manager's RPC server this endpoint accepts calls only with the job manager's
 * current dispatcher leader session; a task executor first asks for it ({@link #leaderSession()},
 * the one unfenced method) and then registers and sends heartbeats under it. A standby, or a job
 * manager that lost its leadership, refuses them naming the leader if it knows it.
 *
 * <p>Gateway rules: every method returns a future or nothing, arguments are serializable or
 * gateways (the {@link TaskExecutorGateway} travels by reference), nothing blocks. Callable from
 * any thread; the work runs on the job manager's registry main thread.
 */
public interface TaskExecutorRegistryGateway {
    /** The endpoint name of this gateway on a job manager's RPC server. */
    String ENDPOINT = "registry";

    /**
     * This job manager's leader session, or that it does not lead (and who does, if known). Answered
     * whatever fencing token the call carries. By default (a registry without fencing): it leads,
     * without a session.
     */
    @Unfenced
    default CompletableFuture<JobManagerSession> leaderSession() {
        return CompletableFuture.completedFuture(JobManagerSession.unfenced("job manager"));
    }

    /**
     * Registers a task executor and its slots. A task executor already registered under the same id
     * is replaced (its old slots and the tasks in them are gone). Completes with the outcome; never
     * fails for a wrong cluster id or a standby (those are outcomes), only for transport errors and,
     * over RPC, for a leader session that is not this job manager's current one ({@code
     * FencingTokenMismatchException}, naming the leader if known).
     */
    CompletableFuture<RegistrationResponse> registerTaskExecutor(TaskExecutorRegistration registration,
                                                                 TaskExecutorGateway taskExecutor);

    /** A heartbeat of registration {@code registrationId}; answered with the job manager's heartbeat. */
    CompletableFuture<HeartbeatResponse> heartbeatFromTaskExecutor(String taskExecutorId, UUID registrationId);

    /** The task executor leaves (it shuts down): its slots go at once, without waiting for the timeout. */
    void disconnectTaskExecutor(String taskExecutorId, UUID registrationId, String reason);
}
