package io.sluice.cluster.membership;

import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.rpc.MainThreadExecutor;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongPredicate;

/**
 * One attempt of a {@link JobManagerConnector} to register its task executor with the leading job
 * manager, in two steps: asks the leader for its dispatcher leader session (unfenced), then registers
 * under it (the registry endpoint refuses any other session). The task executor's endpoint takes the
 * session as its token ({@link Outcome#sessionChosen}) before the registration is sent, so the
 * reference to it in the registration carries the session too. No answer within
 * {@code heartbeat.timeout} fails the attempt.
 *
 * <p>Threading: main thread (the task executor's) only; answers hop there and are dropped once the
 * attempt is no longer the connector's current one (its epoch).
 */
final class RegistrationAttempt {
    /** What the attempt tells its connector, on the main thread. */
    interface Outcome {
        /** The leader session the registration is sent under (the task executor's token from now). */
        void sessionChosen(UUID session);

        void registered(TaskExecutorRegistryGateway gateway, String where, UUID registrationId);

        /** The attempt failed; {@code misconfigured}: the job manager rejected this task executor's cluster id. */
        void failed(String where, String reason, boolean misconfigured);
    }

    private final String leaderId;
    private final JobManagerConnector.RegistryResolver resolver;
    private final TaskExecutorRegistration registration;
    private final TaskExecutorGateway taskExecutor;
    private final MainThreadExecutor mainThread;
    private final HeartbeatSettings heartbeats;
    /** The connector's epoch when the attempt started; {@code current} tells whether it still is. */
    private final long epoch;
    private final LongPredicate current;
    private final Outcome outcome;
    private MainThreadExecutor.ScheduledTask timeout;

    RegistrationAttempt(String leaderId, JobManagerConnector.RegistryResolver resolver,
                        TaskExecutorRegistration registration, TaskExecutorGateway taskExecutor,
                        MainThreadExecutor mainThread, HeartbeatSettings heartbeats, long epoch, LongPredicate current,
                        Outcome outcome) {
        this.leaderId = leaderId;
        this.resolver = resolver;
        this.registration = registration;
        this.taskExecutor = taskExecutor;
        this.mainThread = mainThread;
        this.heartbeats = heartbeats;
        this.epoch = epoch;
        this.current = current;
        this.outcome = outcome;
    }

    /** Asks the leader named {@code leaderId} for its leader session; registers once it answers. */
    void start() {
        JobManagerAddress address;
        TaskExecutorRegistryGateway unfenced;
        try {
            address = JobManagerAddress.parse(leaderId);
            unfenced = Objects.requireNonNull(resolver.resolve(address, null), "the resolver returned no gateway for " + address);
        } catch (RuntimeException e) {
            outcome.failed(leaderId, e.getMessage(), false);
            return;
        }
        String where = "job manager " + address.id() + " at " + address.rpcAddress();
        CompletableFuture<JobManagerSession> session;
        try {
            session = unfenced.leaderSession();
        } catch (RuntimeException e) {
            outcome.failed(where, JobManagerConnector.describe(e), false);
            return;
        }
        timeout = mainThread.schedule(() -> {
            if (current.test(epoch)) {
                timeout = null;
                outcome.failed(where, "no answer within " + heartbeats.describeTimeout(), false);
            }
        }, heartbeats.timeout());
        session.whenCompleteAsync((s, error) -> {
            if (!current.test(epoch)) {
                return;
            }
            if (error != null) {
                outcome.failed(where, JobManagerConnector.describe(error), false);
            } else if (!s.leads()) {
                outcome.failed(where, s.message(), false);
            } else {
                registerUnder(address, where, s.leaderSession());
            }
        }, mainThread);
    }

    private void registerUnder(JobManagerAddress address, String where, UUID session) {
        TaskExecutorRegistryGateway gateway;
        CompletableFuture<RegistrationResponse> response;
        outcome.sessionChosen(session); // before the registration is serialized: the task executor's reference carries it
        try {
            gateway = Objects.requireNonNull(resolver.resolve(address, session), "the resolver returned no gateway for " + address);
            response = gateway.registerTaskExecutor(registration, taskExecutor);
        } catch (RuntimeException e) {
            outcome.failed(where, JobManagerConnector.describe(e), false);
            return;
        }
        response.whenCompleteAsync((r, error) -> {
            if (!current.test(epoch)) {
                return; // a newer attempt, a leader change or close made this answer stale
            }
            cancel();
            if (error != null) {
                outcome.failed(where, JobManagerConnector.describe(error), false);
            } else if (r.isAccepted()) {
                outcome.registered(gateway, where + (session == null ? "" : " (leader session " + session + ")"),
                        r.registrationId());
            } else {
                outcome.failed(where, r.message(), r.outcome() == RegistrationResponse.Outcome.WRONG_CLUSTER);
            }
        }, mainThread);
    }

    /** Stops the attempt's timeout. */
    void cancel() {
        if (timeout != null) {
            timeout.cancel();
            timeout = null;
        }
    }
}
