package io.sluice.cluster.process;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.slots.SlotPool;
import io.sluice.cluster.membership.HeartbeatSettings;
import io.sluice.cluster.membership.JobManagerAddress;
import io.sluice.cluster.membership.TaskExecutorRegistry;
import io.sluice.cluster.membership.TaskExecutorRegistryGateway;
import io.sluice.config.HeartbeatOptions;
import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.config.JobManagerOptions;
import io.sluice.dispatcher.Dispatcher;
import io.sluice.dispatcher.EndedJobRetention;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.loader.HighAvailabilityServicesLoader;
import io.sluice.jar.UserCodeClassLoaders;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.rpc.MainThreadPool;
import io.sluice.jobmaster.RecoveryReads;
import io.sluice.rpc.remote.RpcAddress;
import io.sluice.rpc.remote.RpcService;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.util.SystemClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job manager of {@code sluice jobmanager}: HA services from the configuration, an RPC server
 * on {@code jobmanager.rpc.host:jobmanager.rpc.port} exposing the endpoints {@value #DISPATCHER}
 * (the {@link Dispatcher}) and {@value TaskExecutorRegistryGateway#ENDPOINT} (the
 * {@link TaskExecutorRegistry} that task managers register with), and a Dispatcher whose job masters
 * take slots from the registry's dynamic {@link SlotPool}. Its contender id in the dispatcher election
 * is its {@link JobManagerAddress} (RPC address and REST URL), so task managers and standbys find the
 * leader from leader retrieval alone. One of any number of job managers of a cluster leads; the
 * others are standbys that take over when it goes; a standby reaches the leader's Dispatcher over RPC
 * ({@link #leaderDispatcher()}).
 *
 * <p>Before it joins the election it compares its {@link SharedSettings} with the leader's
 * ({@link SharedSettingsCheck}: a differing {@code high-availability.storage-dir} stops the start with
 * {@link SharedSettingsMismatchException}, other differences are logged), as a standby it compares them
 * with each new leader's ({@link LeaderSettingsWatcher}, logged only), and when it leads it publishes its own.
 *
 * <p>Fencing: both endpoints accept calls only with this job manager's current dispatcher leader
 * session ({@link Dispatcher#currentLeaderSession()}); a standby, or a leader that was deposed,
 * refuses them naming the leader it knows. Task managers and standbys learn the session from the
 * registry's unfenced {@link TaskExecutorRegistryGateway#leaderSession()}. The job masters passed by
 * reference to task executors are fenced with their job's leader session (see {@code JobMaster}), and
 * the task executors' proxies held here carry this job manager's session, which the task executors
 * check (see {@code TaskManagerProcess}).
 *
 * <p>Threading: {@link #start} and {@link #close} block (they connect to and leave the HA services)
 * and run on the command's thread; the accessors are thread-safe and answer from memory. The
 * Dispatcher and the registry each have their own main thread.
 */
public final class JobManagerProcess implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JobManagerProcess.class);
    /** The endpoint name of the Dispatcher on a job manager's RPC server. */
    public static final String DISPATCHER = "dispatcher";

    private final String id;
    private final JobManagerAddress address;
    private final ExecutorService ioExecutor;
    private final HighAvailabilityServices ha;
    private final UserCodeClassLoaders userCode;
    private final SlotPool slotPool;
    private final Dispatcher dispatcher;
    private final TaskExecutorRegistry registry;
    private final RpcService rpc;
    private final ProcessResources resources;
    /** The remote Dispatcher of the last leader asked for, by its contender id. */
    private final AtomicReference<RemoteLeader> remoteLeader = new AtomicReference<>();

    private record RemoteLeader(String contenderId, DispatcherGateway gateway) {
    }

    private JobManagerProcess(String id, JobManagerAddress address, ExecutorService ioExecutor, HighAvailabilityServices ha,
                              UserCodeClassLoaders userCode, SlotPool slotPool, Dispatcher dispatcher,
                              TaskExecutorRegistry registry, RpcService rpc, ProcessResources resources) {
        this.id = id;
        this.address = address;
        this.ioExecutor = ioExecutor;
        this.ha = ha;
        this.userCode = userCode;
        this.slotPool = slotPool;
        this.dispatcher = dispatcher;
        this.registry = registry;
        this.rpc = rpc;
        this.resources = resources;
    }

    /**
     * Connects to the HA services {@code configuration} selects, starts the RPC server and the
     * Dispatcher, which joins the dispatcher election. Blocking.
     *
     * @param restUrl the base URL of this job manager's REST API (advertised to standbys and clients), or null
     */
    public static JobManagerProcess start(Configuration configuration, String restUrl, MeterRegistry metrics)
            throws Exception {
        configuration.validateAll();
        String id = ProcessIds.next("jobmanager");
        ProcessResources resources = new ProcessResources("job manager " + id);
        try {
            ExecutorService io = resources.ioExecutor(metrics);
            HighAvailabilityServices ha = HighAvailabilityServicesLoader.load(configuration);
            resources.add(ha::close);
            SharedSettings shared = SharedSettings.of(configuration);
            String comparedAtStart = SharedSettingsCheck.againstLeader(ha.leaderSettingsStore(), id, shared);
            CheckpointStorageRegistry storages = resources.checkpointStorages(metrics, configuration);
            UserCodeClassLoaders userCode = UserCodeClassLoaders.inTemporaryDirectory(ha::jobJarStore, io);
            resources.add(userCode::close); // after everything that holds a lease: the jar cache directory goes
            SlotPool slotPool = SlotPool.dynamic();

            String host = AdvertisedHost.of(configuration.get(JobManagerOptions.RPC_ADVERTISED_HOST),
                    configuration.get(JobManagerOptions.RPC_HOST));
            RpcService rpc = resources.rpcService(configuration, configuration.get(JobManagerOptions.RPC_HOST),
                    configuration.get(JobManagerOptions.RPC_PORT), host);
            JobManagerAddress address = new JobManagerAddress(id, host, rpc.address().port(), restUrl);

            DedicatedMainThreadExecutor main = resources.mainThread(id);
            MainThreadPool jobThreads = new MainThreadPool("jobs", MainThreadPool.defaultSize());
            resources.add(jobThreads::close);
            JobManagerServices services = new JobManagerServices(ha, storages, slotPool,
                    (jobId, deployment) -> { }, // no in-memory channels here; job masters release them on the task managers
                    io, SystemClock.INSTANCE, new Random(), RecoveryBackoff.DEFAULT, address.encode(), userCode,
                    RecoveryBackoff.UNUSABLE_CHECKPOINTS, jobThreads::newMainThread,
                    new RecoveryReads(configuration.get(JobManagerOptions.RECOVERY_MAX_CONCURRENT_READS), io));
            // Each job's runner and job master on a main thread of its own (borrowed from the pool), never the Dispatcher's.
            Dispatcher dispatcher = new Dispatcher(services, main, EndedJobRetention.from(configuration),
                    jobId -> jobThreads.newMainThread("runner-" + jobId.value().substring(0, 8)));

            DedicatedMainThreadExecutor registryThread = resources.mainThread("registry-" + id);
            TaskExecutorRegistry registry = new TaskExecutorRegistry(address.encode(),
                    configuration.getString("high-availability.cluster-id").orElse("default"), slotPool,
                    dispatcher::isLeader, dispatcher::currentLeaderSession, ha.dispatcherLeaderRetrieval()::currentLeader,
                    registryThread, SystemClock.INSTANCE, HeartbeatSettings.from(configuration));
            if (configuration.get(HeartbeatOptions.CONFIRM_CONNECTION_LOSS)) {
                registry.confirmLossOnConnectionFailure(rpc, configuration.get(HeartbeatOptions.CONFIRM_CONNECTION_LOSS_DEADLINE));
            }
            resources.add(() -> registry.close().get(10, TimeUnit.SECONDS));
            resources.add(() -> dispatcher.close().get(30, TimeUnit.SECONDS));

            // Fenced with the dispatcher leader session: a standby, or a deposed leader, refuses them.
            rpc.expose(TaskExecutorRegistryGateway.ENDPOINT, TaskExecutorRegistryGateway.class, registry,
                    dispatcher::currentLeaderSession, registry::notLeadingHint);
            rpc.expose(DISPATCHER, DispatcherGateway.class, dispatcher, dispatcher::currentLeaderSession,
                    registry::notLeadingHint);
            dispatcher.onLeadershipChange(() -> {
                LOG.info("Job manager {} {} the dispatcher", id, dispatcher.isLeader() ? "now leads" : "no longer leads");
                if (dispatcher.isLeader()) {
                    io.execute(() -> SharedSettingsCheck.publish(ha.leaderSettingsStore(), address.encode(), shared));
                }
            });
            new LeaderSettingsWatcher(ha.leaderSettingsStore(), id, address.encode(), shared, io,
                    delay -> java.util.concurrent.CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS, io),
                    comparedAtStart).start(ha.dispatcherLeaderRetrieval());
            registry.start();
            dispatcher.start();
            LOG.info("Job manager {} started: RPC on {}, REST {}, advertised as {}; high availability: {}", id,
                    rpc.address(), restUrl, address.encode(), configuration.get(HighAvailabilityOptions.TYPE));
            return new JobManagerProcess(id, address, io, ha, userCode, slotPool, dispatcher, registry, rpc, resources);
        } catch (Exception | Error e) {
            resources.close();
            throw e;
        }
    }

    /** This job manager's id (unique per process start). */
    public String id() {
        return id;
    }

    /** Where to reach it, as advertised in the dispatcher election. */
    public JobManagerAddress address() {
        return address;
    }

    /** Its contender id in the dispatcher election (what leader retrieval reports while it leads). */
    public String contenderId() {
        return address.encode();
    }

    public Dispatcher dispatcher() {
        return dispatcher;
    }

    /**
     * The Dispatcher to ask for a client: this one while it leads; otherwise a remote gateway to the
     * leader's (from its advertised address) when another job manager leads, calling it under the
     * leader session it asks the leader for ({@link LeaderDispatcherGateway}); else empty (no leader
     * known: a failover in progress). From memory; creating a remote gateway opens no connection.
     */
    public Optional<DispatcherGateway> leaderDispatcher() {
        if (dispatcher.isLeader()) {
            return Optional.of(dispatcher);
        }
        Optional<String> leader = leaderContenderId();
        if (leader.isEmpty() || leader.get().equals(contenderId()) || !JobManagerAddress.isEncoded(leader.get())) {
            return Optional.empty();
        }
        RemoteLeader known = remoteLeader.get();
        if (known != null && known.contenderId().equals(leader.get())) {
            return Optional.of(known.gateway());
        }
        JobManagerAddress target;
        try {
            target = JobManagerAddress.parse(leader.get());
        } catch (IllegalArgumentException e) {
            LOG.warn("Job manager {} cannot reach the dispatcher leader: {}", id, e.getMessage());
            return Optional.empty();
        }
        RpcAddress at = new RpcAddress(target.rpcHost(), target.rpcPort());
        DispatcherGateway gateway = new LeaderDispatcherGateway(leader.get(),
                rpc.remoteGateway(at, TaskExecutorRegistryGateway.ENDPOINT, TaskExecutorRegistryGateway.class, null, Map.of()),
                session -> rpc.remoteGateway(at, DISPATCHER, DispatcherGateway.class, session, Map.of()));
        remoteLeader.set(new RemoteLeader(leader.get(), gateway));
        return Optional.of(gateway);
    }

    /** The contender id of the dispatcher leader as the HA services report it. From memory. */
    public Optional<String> leaderContenderId() {
        return ha.dispatcherLeaderRetrieval().currentLeader();
    }

    /** A task executor registered with this job manager and its slots. */
    public record TaskExecutorSlots(String id, int slots, int slotsFree) {
    }

    /** The task executors registered with this job manager (none while it is a standby). From memory. */
    public List<TaskExecutorSlots> taskExecutors() {
        Map<String, Integer> free = slotPool.freeSlotsByTaskExecutor();
        List<TaskExecutorSlots> out = new ArrayList<>();
        for (TaskExecutorGateway te : slotPool.taskExecutors()) {
            out.add(new TaskExecutorSlots(te.id(), te.numberOfSlots(), free.getOrDefault(te.id(), 0)));
        }
        return out;
    }

    /** The registry task managers register with (its endpoint fenced with {@link Dispatcher#currentLeaderSession()}). */
    public TaskExecutorRegistry registry() {
        return registry;
    }

    public HighAvailabilityServices haServices() {
        return ha;
    }

    public SlotPool slotPool() {
        return slotPool;
    }

    public UserCodeClassLoaders userCodeClassLoaders() {
        return userCode;
    }

    public ExecutorService ioExecutor() {
        return ioExecutor;
    }

    /**
     * Suspends the jobs this job manager runs (their tasks cancelled, HA data kept), leaves the
     * dispatcher election, drops the registrations and stops the RPC server. Blocking.
     */
    @Override
    public void close() {
        resources.close();
    }
}
