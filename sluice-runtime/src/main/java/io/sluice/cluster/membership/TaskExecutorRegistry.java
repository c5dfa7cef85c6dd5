package io.sluice.cluster.membership;

import io.sluice.slots.SlotPool;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.rpc.remote.RpcAddress;
import io.sluice.rpc.remote.RpcService;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job manager's side of task-executor membership: accepts registrations (checking the cluster
 * id and that this job manager leads), puts the task executors' slots into the dynamic
 * {@link SlotPool}, answers their heartbeats, and removes a task executor that has not sent one for
 * {@code heartbeat.timeout} ("task manager tm-1 lost: no heartbeat for 6 s"), which makes every job
 * master with tasks there fail over. When this job manager stops leading, every registration is
 * dropped (the task executors register with the new leader). With
 * {@link #confirmLossOnConnectionFailure} it also declares a task executor lost within about a second
 * when its RPC connection is reset and its port refuses reconnecting (its process died), while one
 * that only falls silent is still judged by the heartbeat.
 *
 * <p>Threading: all state lives on {@code mainThread} (the Dispatcher's or its own); gateway methods
 * hop there and never block. Start with {@link #start()}, stop with {@link #close()}.
 */
public final class TaskExecutorRegistry implements TaskExecutorRegistryGateway {
    private static final Logger LOG = LoggerFactory.getLogger(TaskExecutorRegistry.class);

    private final String jobManagerId;
    private final String clusterId;
    private final SlotPool slotPool;
    private final BooleanSupplier isLeader;
    private final Supplier<UUID> leaderSession;
    private final Supplier<Optional<String>> currentLeader;
    private final MainThreadExecutor mainThread;
    private final Clock clock;
    private final HeartbeatSettings heartbeats;

    private final Map<String, Registered> registered = new LinkedHashMap<>();
    private MainThreadExecutor.ScheduledTask check;
    private boolean closed;
    /** Confirms a loss when a connection is reset or refused; {@code null}: heartbeats only. Main thread. */
    private ConnectionLossConfirmer confirmer;

    /** A registered task executor (main thread only). */
    private static final class Registered {
        final TaskExecutorRegistration registration;
        final UUID registrationId;
        final TaskExecutorGateway gateway;
        /** Its RPC address when its gateway is remote (for confirming a connection loss), else {@code null}. */
        final RpcAddress address;
        long lastHeartbeatNanos;

        Registered(TaskExecutorRegistration registration, UUID registrationId, TaskExecutorGateway gateway,
                   RpcAddress address, long now) {
            this.registration = registration;
            this.address = address;
            this.registrationId = registrationId;
            this.gateway = gateway;
            this.lastHeartbeatNanos = now;
        }
    }

    /** What the registry knows of one task executor, for status pages. */
    public record RegisteredTaskExecutor(String taskExecutorId, String instanceId, int slots, String dataAddress,
                                         UUID registrationId, long millisSinceHeartbeat) implements java.io.Serializable {
    }

    /**
     * @param jobManagerId  this job manager's id (named in answers and logs)
     * @param clusterId     the {@code high-availability.cluster-id} this job manager serves
     * @param slotPool      the dynamic pool the registered slots go into
     * @param isLeader      whether this job manager leads the dispatcher right now; any thread, from memory
     * @param currentLeader the current dispatcher leader's contender id, for a standby's answer; any thread, from memory
     */
    public TaskExecutorRegistry(String jobManagerId, String clusterId, SlotPool slotPool, BooleanSupplier isLeader,
                                Supplier<Optional<String>> currentLeader, MainThreadExecutor mainThread, Clock clock,
                                HeartbeatSettings heartbeats) {
        this(jobManagerId, clusterId, slotPool, isLeader, () -> null, currentLeader, mainThread, clock, heartbeats);
    }

    /**
     * A registry fenced by the dispatcher leader session: {@link #leaderSession()} answers it, and
     * the task executor gateways of registrations are called under it.
     *
     * @param leaderSession this job manager's dispatcher leader session now, {@code null} while it does not
     *                      lead (or, with a leader answering {@code isLeader}, when it is unfenced); any thread, from memory
     */
    public TaskExecutorRegistry(String jobManagerId, String clusterId, SlotPool slotPool, BooleanSupplier isLeader,
                                Supplier<UUID> leaderSession, Supplier<Optional<String>> currentLeader,
                                MainThreadExecutor mainThread, Clock clock, HeartbeatSettings heartbeats) {
        this.leaderSession = Objects.requireNonNull(leaderSession, "leaderSession");
        this.jobManagerId = Objects.requireNonNull(jobManagerId, "jobManagerId");
        this.clusterId = Objects.requireNonNull(clusterId, "clusterId");
        this.slotPool = Objects.requireNonNull(slotPool, "slotPool");
        this.isLeader = Objects.requireNonNull(isLeader, "isLeader");
        this.currentLeader = Objects.requireNonNull(currentLeader, "currentLeader");
        this.mainThread = Objects.requireNonNull(mainThread, "mainThread");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.heartbeats = Objects.requireNonNull(heartbeats, "heartbeats");
        if (!slotPool.isDynamic()) {
            throw new IllegalArgumentException("The task executor registry needs a dynamic slot pool (SlotPool.dynamic())");
        }
    }

    /**
     * Also declares a task executor lost soon after its RPC connection is reset or refused, when
     * reconnecting for {@code deadline} is refused throughout (see {@link ConnectionLossConfirmer});
     * {@link #connectionFailed} reports such failures. Call before {@link #start()}; any thread.
     */
    public void confirmLossOnConnectionFailure(RpcService rpc, Duration deadline) {
        Objects.requireNonNull(rpc, "rpc");
        confirmLossOnConnectionFailure(ConnectionLossConfirmer.Probe.of(rpc), deadline);
        rpc.onConnectionFailure(this::connectionFailed);
    }

    /** As {@link #confirmLossOnConnectionFailure(RpcService, Duration)} over any probe (tests). Any thread. */
    void confirmLossOnConnectionFailure(ConnectionLossConfirmer.Probe probe, Duration deadline) {
        mainThread.execute(() -> confirmer = new ConnectionLossConfirmer(probe, mainThread, clock, deadline,
                this::confirmedLost));
    }

    /**
     * A connection to {@code address} was reset, closed by the peer or refused ({@code cause} may be
     * {@code null}): the task executors registered from there are checked. Any thread; never blocks.
     */
    public void connectionFailed(RpcAddress address, Throwable cause) {
        mainThread.execute(() -> {
            if (closed || confirmer == null) {
                return;
            }
            for (Registered r : registered.values()) {
                if (address.equals(r.address)) {
                    confirmer.suspect(r.registration.taskExecutorId(), r.registrationId, address, cause);
                }
            }
        });
    }

    /** Starts checking heartbeats every {@code heartbeat.interval}. Any thread. */
    public void start() {
        mainThread.execute(() -> {
            if (!closed && check == null) {
                scheduleCheck();
            }
        });
    }

    /** Stops checking and drops every registration (their slots leave the pool). Any thread. */
    public CompletableFuture<Void> close() {
        return CompletableFuture.runAsync(() -> {
            if (closed) {
                return;
            }
            closed = true;
            if (check != null) {
                check.cancel();
                check = null;
            }
            dropAll("job manager " + jobManagerId + " shut down");
        }, mainThread);
    }

    @Override
    public CompletableFuture<JobManagerSession> leaderSession() {
        boolean leads = isLeader.getAsBoolean();
        UUID session = leaderSession.get();
        return CompletableFuture.completedFuture(new JobManagerSession(jobManagerId, leads, leads ? session : null,
                leads ? jobManagerId + " leads (session " + session + ")" : notLeadingHint()));
    }

    /**
     * Why this job manager takes no task managers now and who leads instead, if known: for the error
     * of a call refused by the fenced registry endpoint. Any thread; from memory.
     */
    public String notLeadingHint() {
        Optional<String> leader = currentLeader.get();
        if (leader.isEmpty()) {
            return "job manager " + jobManagerId + " does not lead; no leader is known yet";
        }
        if (leader.get().equals(jobManagerId)) {
            return "job manager " + jobManagerId + " does not lead yet (leader retrieval names it: it is taking over)";
        }
        return "job manager " + jobManagerId + " is a standby; the leader is " + leader.get();
    }

    @Override
    public CompletableFuture<RegistrationResponse> registerTaskExecutor(TaskExecutorRegistration registration,
                                                                        TaskExecutorGateway taskExecutor) {
        return CompletableFuture.supplyAsync(() -> register(registration, taskExecutor), mainThread);
    }

    @Override
    public CompletableFuture<HeartbeatResponse> heartbeatFromTaskExecutor(String taskExecutorId, UUID registrationId) {
        return CompletableFuture.supplyAsync(() -> {
            Registered r = registered.get(taskExecutorId);
            if (closed || r == null || !r.registrationId.equals(registrationId) || !isLeader.getAsBoolean()) {
                LOG.debug("Heartbeat of task manager {} with unknown registration {}: asking it to register again",
                        taskExecutorId, registrationId);
                return HeartbeatResponse.UNKNOWN_REGISTRATION;
            }
            r.lastHeartbeatNanos = clock.nanoTime();
            return HeartbeatResponse.ACCEPTED;
        }, mainThread);
    }

    @Override
    public void disconnectTaskExecutor(String taskExecutorId, UUID registrationId, String reason) {
        mainThread.execute(() -> {
            Registered r = registered.get(taskExecutorId);
            if (r != null && r.registrationId.equals(registrationId)) {
                remove(r, "task manager " + taskExecutorId + " disconnected: " + reason);
            }
        });
    }

    /** The registered task executors, in registration order. Any thread; completes on the main thread. */
    public CompletableFuture<List<RegisteredTaskExecutor>> registeredTaskExecutors() {
        return CompletableFuture.supplyAsync(() -> {
            long now = clock.nanoTime();
            List<RegisteredTaskExecutor> out = new ArrayList<>();
            for (Registered r : registered.values()) {
                out.add(new RegisteredTaskExecutor(r.registration.taskExecutorId(), r.registration.instanceId(),
                        r.registration.slots(), r.registration.dataAddress(), r.registrationId,
                        (now - r.lastHeartbeatNanos) / 1_000_000));
            }
            return out;
        }, mainThread);
    }

    // ---------------------------------------------------------------- main thread

    private RegistrationResponse register(TaskExecutorRegistration reg, TaskExecutorGateway gateway) {
        mainThread.assertRunningInMainThread();
        String id = reg.taskExecutorId();
        if (!clusterId.equals(reg.clusterId())) {
            String message = "task manager " + id + " belongs to cluster '" + reg.clusterId() + "', this job manager ("
                    + jobManagerId + ") serves '" + clusterId + "'; set high-availability.cluster-id to the same value"
                    + " on the task manager and the job managers";
            LOG.warn("Rejected the registration of task manager {}: {}", id, message);
            return RegistrationResponse.rejected(RegistrationResponse.Outcome.WRONG_CLUSTER, jobManagerId, message);
        }
        if (closed || !isLeader.getAsBoolean()) {
            return RegistrationResponse.rejected(RegistrationResponse.Outcome.NOT_LEADER, jobManagerId,
                    standbyMessage(id));
        }
        if (!id.equals(gateway.id()) || reg.slots() != gateway.numberOfSlots()) {
            throw new IllegalArgumentException("The registration of task manager " + id + " (" + reg.slots()
                    + " slots) does not match its gateway (" + gateway.id() + ", " + gateway.numberOfSlots() + " slots)");
        }
        Registered old = registered.remove(id);
        String replacedReason = null;
        if (old != null) {
            long sinceHeartbeat = clock.nanoTime() - old.lastHeartbeatNanos;
            if (old.registration.instanceId().equals(reg.instanceId())) {
                replacedReason = "task manager " + id + " registered again (it had lost this job manager and cancelled"
                        + " its tasks)";
            } else {
                replacedReason = "task manager " + id + " restarted (process instance " + old.registration.instanceId()
                        + " replaced by " + reg.instanceId() + "); its tasks are gone";
                if (sinceHeartbeat < heartbeats.interval().toNanos() * 2) {
                    LOG.warn("Task manager {} registered from process instance {} while instance {} sent a heartbeat {} ms"
                                    + " ago. If both run, two task managers share the id {}: give each its own id;"
                                    + " they will keep replacing each other otherwise", id, reg.instanceId(),
                            old.registration.instanceId(), sinceHeartbeat / 1_000_000, id);
                }
            }
            LOG.info("{}", replacedReason);
        }
        if (confirmer != null) {
            confirmer.forget(id);
        }
        RpcAddress address = confirmer == null ? null : confirmer.probe().addressOf(gateway).orElse(null);
        UUID session = leaderSession.get();
        if (session != null) {
            // Every call of this job manager's job masters to the task executor carries its leader session.
            gateway = RpcService.withFencingToken(gateway, session);
        }
        UUID registrationId = UUID.randomUUID();
        registered.put(id, new Registered(reg, registrationId, gateway, address, clock.nanoTime()));
        if (address != null) {
            // Keep a connection to it open from now on, so that its process dying is seen as a reset at once.
            confirmer.probe().connect(address).whenComplete((ok, error) -> {
                if (error != null) {
                    connectionFailed(address, error);
                }
            });
        }
        slotPool.addTaskExecutor(gateway, reg.instanceId(), replacedReason != null ? replacedReason
                : "task manager " + id + " registered again");
        LOG.info("Task manager {} registered with job manager {}: {} slot(s), data address {}, instance {}; the pool now"
                        + " has {} slot(s), {} free", id, jobManagerId, reg.slots(), reg.dataAddress(), reg.instanceId(),
                slotPool.totalSlots(), slotPool.freeSlots());
        return RegistrationResponse.accepted(registrationId, jobManagerId);
    }

    private String standbyMessage(String taskExecutorId) {
        Optional<String> leader = currentLeader.get();
        if (leader.isPresent() && !leader.get().equals(jobManagerId)) {
            return "job manager " + jobManagerId + " is a standby and does not take task managers; the leader is "
                    + leader.get();
        }
        return "job manager " + jobManagerId + " does not lead (yet); task manager " + taskExecutorId
                + " should register with the leader once it is known";
    }

    private void scheduleCheck() {
        check = mainThread.schedule(() -> {
            check = null;
            if (closed) {
                return;
            }
            checkHeartbeats();
            scheduleCheck();
        }, heartbeats.interval());
    }

    private void checkHeartbeats() {
        if (!isLeader.getAsBoolean()) {
            if (!registered.isEmpty()) {
                dropAll("job manager " + jobManagerId + " no longer leads");
            }
            return;
        }
        long now = clock.nanoTime();
        long timeout = heartbeats.timeout().toNanos();
        for (Registered r : List.copyOf(registered.values())) {
            if (now - r.lastHeartbeatNanos >= timeout) {
                String reason = "task manager " + r.registration.taskExecutorId() + " lost: no heartbeat for "
                        + heartbeats.describeTimeout();
                LOG.warn("{}; its {} slot(s) leave the pool and jobs with tasks there fail over", reason,
                        r.registration.slots());
                remove(r, reason);
            }
        }
    }

    private void dropAll(String reason) {
        for (Registered r : List.copyOf(registered.values())) {
            remove(r, reason + "; task manager " + r.registration.taskExecutorId() + " must register again");
        }
    }

    private void confirmedLost(String taskExecutorId, UUID registrationId, String evidence) {
        Registered r = registered.get(taskExecutorId);
        if (closed || r == null || !r.registrationId.equals(registrationId)) {
            return; // registered again meanwhile, or gone already
        }
        String reason = "task manager " + taskExecutorId + " lost: " + evidence;
        LOG.warn("{}; its {} slot(s) leave the pool and jobs with tasks there fail over", reason, r.registration.slots());
        remove(r, reason);
    }

    private void remove(Registered r, String reason) {
        if (confirmer != null && registered.get(r.registration.taskExecutorId()) == r) {
            confirmer.forget(r.registration.taskExecutorId());
        }
        registered.remove(r.registration.taskExecutorId(), r);
        slotPool.removeTaskExecutor(r.registration.taskExecutorId(), reason);
    }
}
