package io.sluice.cluster.membership;

import io.sluice.concurrent.Futures;
import io.sluice.config.Durations;
import io.sluice.ha.LeaderRetrieval;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task executor's side of membership: follows the dispatcher leader through
 * {@link LeaderRetrieval} (whose contender id is the leader's {@link JobManagerAddress}), registers
 * with the leader's {@link TaskExecutorRegistryGateway} (found through the injected resolver) with
 * exponential backoff, sends heartbeats while registered, and when it loses the job manager — no
 * answer to its heartbeats for {@code heartbeat.timeout}, the job manager no longer knows the
 * registration, or the leader changed — cancels all its tasks and, once they have ended (or after
 * {@code heartbeat.timeout} at the latest), registers again (with the new leader after a failover),
 * without restarting the process. Waiting for the tasks to end keeps a new job master from deploying
 * a job here while this task executor still runs the old deployment's tasks. It never gives up: a job manager that
 * is unreachable or rejects it (wrong cluster id: an ERROR line per attempt, retried at the longest
 * backoff) is retried until the connector is closed.
 *
 * <p>Fencing: each registration first asks the job manager for its dispatcher leader session and
 * then registers and sends heartbeats under it; {@link #leaderSession()} is the token of the task
 * executor's own endpoint, so only the job manager it is registered with reaches it. A heartbeat
 * refused for its session (the job manager was deposed) counts as losing the job manager.
 *
 * <p>Parts: each registration attempt is a {@link RegistrationAttempt}, the heartbeats of a
 * registration a {@link HeartbeatSender}; this class follows the leader, keeps the connection state
 * and decides on loss and retries.
 *
 * <p>Threading: all state lives on {@code mainThread} (the task executor's); the leader listener and
 * every future callback hop there and re-check that they still belong to the current attempt or
 * registration (an epoch counter) before acting. Nothing blocks; the resolver must not block either
 * (an RPC proxy connects lazily).
 */
public final class JobManagerConnector {
    private static final Logger LOG = LoggerFactory.getLogger(JobManagerConnector.class);

    private final TaskExecutorRegistration registration;
    private final TaskExecutorGateway taskExecutor;
    private final Function<String, CompletableFuture<?>> cancelAllTasks;
    private final LeaderRetrieval leaderRetrieval;
    private final RegistryResolver resolver;
    private final MainThreadExecutor mainThread;
    private final Clock clock;
    private final HeartbeatSettings heartbeats;
    private final RegistrationBackoff backoff;
    private final Consumer<Optional<String>> leaderListener;

    /** The leader's contender id as last told, or null. */
    private String leader;
    /** Bumped by everything that makes outstanding callbacks stale (new attempt, loss, leader change, close). */
    private long epoch;
    /** The leader session of the job manager registered with or being registered with; null otherwise. Written on the main thread. */
    private volatile UUID leaderSession;
    private TaskExecutorRegistryGateway target;
    private String targetDescription;
    private UUID registrationId;
    private int attempt;
    private String lastError;
    /** The heartbeats of the current registration; {@code null} while not registered. */
    private HeartbeatSender heartbeatSender;
    private MainThreadExecutor.ScheduledTask timer;
    /** The registration attempt under way; {@code null} otherwise. */
    private RegistrationAttempt registrationAttempt;
    private boolean started;
    private boolean closed;
    /** Confirms a dead job manager when the connection to it is reset or refused; {@code null}: heartbeats only. */
    private ConnectionLossConfirmer confirmer;
    /** The RPC address of the registry registered with, when remote and confirming; else {@code null}. */
    private io.sluice.rpc.remote.RpcAddress targetAddress;

    /** Finds the registry of a job manager, as a gateway whose calls carry the given leader session. */
    @FunctionalInterface
    public interface RegistryResolver {
        /**
         * The registry at {@code address} (a local object or an RPC proxy) calling it under
         * {@code leaderSession} ({@code null}: without a session, for {@link TaskExecutorRegistryGateway#leaderSession()}).
         * Must not block.
         */
        TaskExecutorRegistryGateway resolve(JobManagerAddress address, UUID leaderSession);
    }

    /**
     * A connector whose task cancellation counts as done at once (it does not wait for the tasks to
     * end before registering again). Prefer the other constructor with {@code TaskExecutor::cancelAllTasks}.
     *
     * @param cancelAllTasks cancels every task of the task executor, with the reason; called on {@code mainThread}
     */
    public JobManagerConnector(TaskExecutorRegistration registration, TaskExecutorGateway taskExecutor,
                               Consumer<String> cancelAllTasks, LeaderRetrieval leaderRetrieval,
                               Function<JobManagerAddress, TaskExecutorRegistryGateway> resolver,
                               MainThreadExecutor mainThread, Clock clock, HeartbeatSettings heartbeats,
                               RegistrationBackoff backoff) {
        this(registration, taskExecutor, (String reason) -> {
            cancelAllTasks.accept(reason);
            return CompletableFuture.completedFuture(null);
        }, leaderRetrieval, resolver, mainThread, clock, heartbeats, backoff);
    }

    /** A connector whose resolver ignores the leader session (local registries, without fencing). */
    public JobManagerConnector(TaskExecutorRegistration registration, TaskExecutorGateway taskExecutor,
                               Function<String, CompletableFuture<?>> cancelAllTasks,
                               LeaderRetrieval leaderRetrieval,
                               Function<JobManagerAddress, TaskExecutorRegistryGateway> resolver,
                               MainThreadExecutor mainThread, Clock clock, HeartbeatSettings heartbeats,
                               RegistrationBackoff backoff) {
        this(registration, taskExecutor, cancelAllTasks, leaderRetrieval,
                (RegistryResolver) (address, session) -> resolver.apply(address), mainThread, clock, heartbeats, backoff);
    }

    /**
     * @param registration   what to register (id, process instance id, slots, data address, cluster id)
     * @param taskExecutor   the task executor, sent by reference with the registration
     * @param cancelAllTasks cancels every task of the task executor, with the reason, and completes once
     *                       they have ended ({@code TaskExecutor::cancelAllTasks}); called on {@code mainThread}
     * @param resolver       the registry gateway at a job manager address under a leader session (local object or
     *                       RPC proxy); must not block
     */
    public JobManagerConnector(TaskExecutorRegistration registration, TaskExecutorGateway taskExecutor,
                               Function<String, CompletableFuture<?>> cancelAllTasks,
                               LeaderRetrieval leaderRetrieval,
                               RegistryResolver resolver,
                               MainThreadExecutor mainThread, Clock clock, HeartbeatSettings heartbeats,
                               RegistrationBackoff backoff) {
        this.registration = Objects.requireNonNull(registration, "registration");
        this.taskExecutor = Objects.requireNonNull(taskExecutor, "taskExecutor");
        this.cancelAllTasks = Objects.requireNonNull(cancelAllTasks, "cancelAllTasks");
        this.leaderRetrieval = Objects.requireNonNull(leaderRetrieval, "leaderRetrieval");
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.mainThread = Objects.requireNonNull(mainThread, "mainThread");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.heartbeats = Objects.requireNonNull(heartbeats, "heartbeats");
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        this.leaderListener = l -> mainThread.execute(() -> onLeaderChange(l));
    }

    /**
     * Also counts the job manager as lost soon after the RPC connection to it is reset or refused,
     * when reconnecting for {@code deadline} is refused throughout (its process is gone; see
     * {@link ConnectionLossConfirmer}), instead of after {@code heartbeat.timeout}. Call before
     * {@link #start()}; any thread.
     */
    public void confirmLossOnConnectionFailure(io.sluice.rpc.remote.RpcService rpc, java.time.Duration deadline) {
        confirmLossOnConnectionFailure(ConnectionLossConfirmer.Probe.of(rpc), deadline);
        rpc.onConnectionFailure(this::connectionFailed);
    }

    /** As {@link #confirmLossOnConnectionFailure(io.sluice.rpc.remote.RpcService, java.time.Duration)} over any probe. */
    void confirmLossOnConnectionFailure(ConnectionLossConfirmer.Probe probe, java.time.Duration deadline) {
        mainThread.execute(() -> confirmer = new ConnectionLossConfirmer(probe, mainThread, clock, deadline,
                (peer, id, evidence) -> {
                    if (!closed && id.equals(registrationId)) {
                        registerOnceEnded(lose(targetDescription + " is gone: " + evidence));
                    }
                }));
    }

    /** A connection to {@code address} failed ({@code cause} may be {@code null}). Any thread; never blocks. */
    public void connectionFailed(io.sluice.rpc.remote.RpcAddress address, Throwable cause) {
        mainThread.execute(() -> {
            if (!closed && confirmer != null && registrationId != null && address.equals(targetAddress)) {
                confirmer.suspect(targetDescription, registrationId, address, cause);
            }
        });
    }

    /** Starts following the leader. Any thread; returns at once. */
    public void start() {
        mainThread.execute(() -> {
            if (started || closed) {
                return;
            }
            started = true;
            leaderRetrieval.addListener(leaderListener);
        });
    }

    /**
     * Stops: leaves the job manager (its slots go at once there), stops heartbeats and retries. Tasks
     * are not cancelled here (the task executor's own shutdown does that). Any thread.
     */
    public CompletableFuture<Void> close() {
        return CompletableFuture.runAsync(() -> {
            if (closed) {
                return;
            }
            closed = true;
            leaderRetrieval.removeListener(leaderListener);
            if (registrationId != null) {
                target.disconnectTaskExecutor(registration.taskExecutorId(), registrationId, "the task manager shuts down");
            }
            invalidate();
        }, mainThread);
    }

    /**
     * The dispatcher leader session of the job manager this task executor is registered with (or
     * registering with, once that job manager named it): the fencing token of the task executor's
     * endpoint, so that only that job manager's job masters reach it. {@code null} while it has none
     * (no leader, between registrations): then the endpoint refuses every call. Any thread; from memory.
     */
    public UUID leaderSession() {
        return leaderSession;
    }

    /** Where this task executor stands. Any thread; completes on the main thread. */
    public CompletableFuture<ConnectionStatus> status() {
        return CompletableFuture.supplyAsync(this::currentStatus, mainThread);
    }

    private ConnectionStatus currentStatus() {
        ConnectionStatus.State state = closed ? ConnectionStatus.State.CLOSED
                : registrationId != null ? ConnectionStatus.State.REGISTERED
                : leader == null ? ConnectionStatus.State.NO_LEADER : ConnectionStatus.State.REGISTERING;
        return new ConnectionStatus(state, leader, registrationId, registrationId != null ? 0 : attempt, lastError);
    }

    // ---------------------------------------------------------------- main thread

    private void onLeaderChange(Optional<String> newLeader) {
        mainThread.assertRunningInMainThread();
        if (closed) {
            return;
        }
        String next = newLeader.orElse(null);
        if (Objects.equals(next, leader)) {
            return;
        }
        String previous = leader;
        leader = next;
        CompletableFuture<?> tasksEnded = registrationId == null ? CompletableFuture.completedFuture(null)
                : lose("the dispatcher leader changed from " + previous + " to " + (next == null ? "none" : next));
        attempt = 0;
        lastError = null;
        if (leader == null) {
            invalidate();
            LOG.info("Task manager {}: no job manager leads at the moment; waiting for one", registration.taskExecutorId());
            return;
        }
        LOG.info("Task manager {}: the leading job manager is {}; registering", registration.taskExecutorId(), leader);
        registerOnceEnded(tasksEnded);
    }

    /**
     * Registers once the cancelled tasks have ended, or after {@code heartbeat.timeout} if one
     * ignores the cancellation (logged), so that the job manager never sees this task executor's
     * slots free while its old tasks still run.
     */
    private void registerOnceEnded(CompletableFuture<?> tasksEnded) {
        invalidate();
        if (tasksEnded.isDone()) {
            tryRegister();
            return;
        }
        long myEpoch = epoch;
        timer = mainThread.schedule(() -> {
            if (myEpoch == epoch && !closed) {
                timer = null;
                LOG.warn("Task manager {}: some tasks have not ended {} after they were cancelled; registering anyway",
                        registration.taskExecutorId(), heartbeats.describeTimeout());
                tryRegister();
            }
        }, heartbeats.timeout());
        tasksEnded.whenCompleteAsync((ok, error) -> {
            if (myEpoch == epoch && !closed) {
                tryRegister(); // cancels the fallback timer
            }
        }, mainThread);
    }

    /** Makes every outstanding callback stale and stops the timers; forgets the registration. */
    private void invalidate() {
        epoch++;
        registrationId = null;
        leaderSession = null;
        target = null;
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        if (registrationAttempt != null) {
            registrationAttempt.cancel();
            registrationAttempt = null;
        }
        if (heartbeatSender != null) {
            heartbeatSender.stop();
            heartbeatSender = null;
        }
    }

    /** Starts a registration attempt with the current leader ({@link RegistrationAttempt}). */
    private void tryRegister() {
        invalidate();
        attempt++;
        registrationAttempt = new RegistrationAttempt(leader, resolver, registration, taskExecutor, mainThread,
                heartbeats, epoch, myEpoch -> myEpoch == epoch && !closed, new RegistrationAttempt.Outcome() {
                    @Override
                    public void sessionChosen(UUID session) {
                        leaderSession = session;
                    }

                    @Override
                    public void registered(TaskExecutorRegistryGateway gateway, String where, UUID registrationId) {
                        JobManagerConnector.this.registered(gateway, where, registrationId);
                    }

                    @Override
                    public void failed(String where, String reason, boolean misconfigured) {
                        failedAttempt(where, reason, misconfigured ? backoff.max() : backoff.delayAfter(attempt),
                                misconfigured);
                    }
                });
        registrationAttempt.start();
    }

    private void failedAttempt(String where, String reason, Duration retryIn, boolean misconfigured) {
        lastError = reason;
        epoch++; // a late answer to this attempt is stale now
        long myEpoch = epoch;
        if (misconfigured) {
            LOG.error("Task manager {} cannot join {}: {} (attempt {}); retrying in {} until the configuration is fixed",
                    registration.taskExecutorId(), where, reason, attempt, Durations.describe(retryIn));
        } else {
            LOG.warn("Task manager {} could not register with {}: {} (attempt {}); next retry in {}",
                    registration.taskExecutorId(), where, reason, attempt, Durations.describe(retryIn));
        }
        timer = mainThread.schedule(() -> {
            if (myEpoch == epoch && !closed) {
                timer = null;
                tryRegister();
            }
        }, retryIn);
    }

    private void registered(TaskExecutorRegistryGateway gateway, String where, UUID id) {
        target = gateway;
        targetDescription = where;
        registrationId = id;
        lastError = null;
        LOG.info("Task manager {} registered with {} (registration {}, {} slot(s)) after {} attempt(s)",
                registration.taskExecutorId(), where, id, registration.slots(), attempt);
        attempt = 0;
        targetAddress = confirmer == null ? null : confirmer.probe().addressOf(target).orElse(null);
        heartbeatSender = new HeartbeatSender(gateway, where, registration.taskExecutorId(), id, mainThread, clock,
                heartbeats, epoch, myEpoch -> myEpoch == epoch && !closed, reason -> registerOnceEnded(lose(reason)));
        heartbeatSender.start();
    }

    /**
     * The job manager is lost: cancel every task (they belong to its job masters) and forget the
     * registration. Returns when the tasks have ended.
     */
    private CompletableFuture<?> lose(String reason) {
        LOG.warn("Task manager {} lost its job manager: {}; cancelling all its tasks and registering again once they"
                + " ended", registration.taskExecutorId(), reason);
        if (confirmer != null && targetDescription != null) {
            confirmer.forget(targetDescription);
        }
        registrationId = null;
        target = null;
        targetAddress = null;
        leaderSession = null; // from now on the task executor refuses the lost job manager's calls
        try {
            CompletableFuture<?> ended = cancelAllTasks.apply("job manager lost: " + reason);
            return ended == null ? CompletableFuture.completedFuture(null) : ended;
        } catch (RuntimeException e) {
            LOG.error("Task manager {}: cancelling its tasks failed", registration.taskExecutorId(), e);
            return CompletableFuture.completedFuture(null);
        }
    }

    static String describe(Throwable error) {
        Throwable e = Futures.unwrap(error);
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + message;
    }
}
