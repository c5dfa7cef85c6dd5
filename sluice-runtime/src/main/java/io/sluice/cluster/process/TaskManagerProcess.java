package io.sluice.cluster.process;

import io.sluice.state.StateBackends;
import io.sluice.taskexecutor.KeyedStateBackendFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.config.HeartbeatOptions;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.cluster.membership.HeartbeatSettings;
import io.sluice.cluster.membership.JobManagerAddress;
import io.sluice.cluster.membership.JobManagerConnector;
import io.sluice.cluster.membership.RegistrationBackoff;
import io.sluice.cluster.membership.TaskExecutorRegistration;
import io.sluice.cluster.membership.TaskExecutorRegistryGateway;
import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.config.JobManagerOptions;
import io.sluice.config.TaskManagerOptions;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.loader.HighAvailabilityServicesLoader;
import io.sluice.ha.LeaderRetrieval;
import io.sluice.jar.FileJobJarStore;
import io.sluice.jar.JobJarStore;
import io.sluice.jar.UserCodeClassLoaders;
import io.sluice.network.netty.NettyShuffleEnvironment;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.rpc.remote.RpcAddress;
import io.sluice.rpc.remote.RpcService;
import io.sluice.taskexecutor.TaskExecutor;
import io.sluice.taskexecutor.TaskLocalStateStore;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.util.SystemClock;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task manager of {@code sluice taskmanager --slots N}: a {@link TaskExecutor} with its slots,
 * exposed as the RPC endpoint {@value #ENDPOINT}, its TCP data server, and a
 * {@link JobManagerConnector} that follows the dispatcher leader through leader retrieval and
 * registers with its {@code registry} endpoint (with backoff; again after a failover, without a
 * restart). The jars of the jobs it runs tasks of are fetched from the HA job jar store (their digest
 * checked) into a class loader per job, released with the job's last task here.
 *
 * <p>Which job managers it follows: with {@code high-availability.type: zookeeper} (several hosts)
 * the leader that ZooKeeper names for {@code high-availability.cluster-id}; with {@code embedded}
 * (one job manager, on this host) the one at {@code jobmanager.rpc.host:jobmanager.rpc.port}, whose
 * job jars it reads from {@code <high-availability.dir>/jobjars}.
 *
 * <p>Threading: {@link #start} and {@link #close} block and run on the command's thread; the task
 * executor and the connector share the task executor's main thread; jar fetches run on the I/O executor.
 */
public final class TaskManagerProcess implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerProcess.class);
    /** The endpoint name of the task executor on a task manager's RPC server. */
    public static final String ENDPOINT = "taskexecutor";

    private final String id;
    private final TaskExecutor taskExecutor;
    private final JobManagerConnector connector;
    private final RpcService rpc;
    /** What to close, in order (the last started first). */
    private final ProcessResources resources;

    private TaskManagerProcess(String id, TaskExecutor taskExecutor, JobManagerConnector connector, RpcService rpc,
                               ProcessResources resources) {
        this.id = id;
        this.taskExecutor = taskExecutor;
        this.connector = connector;
        this.rpc = rpc;
        this.resources = resources;
    }

    /** Starts the task executor with {@code slots} slots and starts following the job manager leader. Blocking. */
    public static TaskManagerProcess start(Configuration configuration, int slots, MeterRegistry metrics) throws Exception {
        configuration.validateAll();
        String id = ProcessIds.next("taskmanager");
        ProcessResources resources = new ProcessResources("task manager " + id);
        try {
            ExecutorService io = resources.ioExecutor(metrics);
            ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(DaemonThreadFactory.numbered("sluice-tm-timer-"));
            resources.add(timer::shutdownNow);
            String type = configuration.get(HighAvailabilityOptions.TYPE);
            boolean local = HighAvailabilityServicesLoader.EMBEDDED.equals(type) || HighAvailabilityServicesLoader.MEMORY.equals(type);
            JobJarStore jars;
            LeaderRetrieval leaders;
            if (local) {
                jars = HighAvailabilityServicesLoader.EMBEDDED.equals(type)
                        ? new FileJobJarStore(Path.of(configuration.get(HighAvailabilityOptions.DIRECTORY)).resolve("jobjars"))
                        : JobJarStore.unsupported("memory", "use high-availability.type: zookeeper with"
                                + " high-availability.storage-dir to run jobs from jars on task managers");
                String jm = new JobManagerAddress("jobmanager", configuration.get(JobManagerOptions.RPC_HOST),
                        configuration.get(JobManagerOptions.RPC_PORT), null).encode();
                leaders = new StaticLeaderRetrieval(jm, timer);
            } else {
                HighAvailabilityServices ha = HighAvailabilityServicesLoader.load(configuration);
                resources.add(ha::close);
                jars = ha.jobJarStore();
                leaders = ha.dispatcherLeaderRetrieval();
                NoLeaderReporter noLeader = new NoLeaderReporter(leaders, "Task manager " + id,
                        describeCluster(configuration), configuration.get(TaskManagerOptions.NO_LEADER_WARNING_INTERVAL), timer);
                resources.add(noLeader);
            }
            CheckpointStorageRegistry storages = resources.checkpointStorages(metrics, configuration);
            NettyShuffleEnvironment network = NettyShuffleEnvironment.start(id, configuration,
                    resources.internalTls(configuration));
            resources.add(network);
            network.bindMetrics(metrics);
            JobJarStore jobJars = jars;
            UserCodeClassLoaders userCode = UserCodeClassLoaders.inTemporaryDirectory(() -> jobJars, io);
            resources.add(userCode::close); // after everything that holds a lease: the jar cache directory goes
            DedicatedMainThreadExecutor main = resources.mainThread(id);
            StateBackends stateBackends = StateBackends.fromConfiguration(configuration);
            resources.add(stateBackends::close); // shared memory goes once the last task using it closed its backend
            TaskExecutor taskExecutor = new TaskExecutor(id, slots, main, io, network, storages, userCode,
                    SystemClock.INSTANCE,
                    KeyedStateBackendFactory.of(stateBackends), TaskLocalStateStore.directoryFor(configuration, id));
            resources.add(taskExecutor::closeLocalState); // closed in reverse order: after the tasks' cancellation
            resources.add(() -> taskExecutor.cancelAll().get(30, TimeUnit.SECONDS));

            RpcService rpc = resources.rpcService(configuration, configuration.get(TaskManagerOptions.HOST),
                    configuration.get(TaskManagerOptions.RPC_PORT), AdvertisedHost.of(
                            configuration.get(TaskManagerOptions.ADVERTISED_HOST), configuration.get(TaskManagerOptions.HOST)));
            TaskExecutorRegistration registration = new TaskExecutorRegistration(id, UUID.randomUUID().toString(), slots,
                    network.dataAddress(), configuration.getString("high-availability.cluster-id").orElse("default"));
            JobManagerConnector connector = new JobManagerConnector(registration, taskExecutor,
                    // registers again only once the cancelled tasks have ended
                    (java.util.function.Function<String, java.util.concurrent.CompletableFuture<?>>) taskExecutor::cancelAllTasks,
                    leaders,
                    (JobManagerConnector.RegistryResolver) (address, session) -> rpc.remoteGateway(
                            new RpcAddress(address.rpcHost(), address.rpcPort()), TaskExecutorRegistryGateway.ENDPOINT,
                            TaskExecutorRegistryGateway.class, session, Map.of()),
                    main, SystemClock.INSTANCE, HeartbeatSettings.from(configuration), RegistrationBackoff.from(configuration));
            if (configuration.get(HeartbeatOptions.CONFIRM_CONNECTION_LOSS)) {
                connector.confirmLossOnConnectionFailure(rpc,
                        configuration.get(HeartbeatOptions.CONFIRM_CONNECTION_LOSS_DEADLINE));
            }
            // Only the job manager this task manager is registered with (its leader session) reaches the task executor.
            rpc.expose(ENDPOINT, TaskExecutorGateway.class, taskExecutor, connector::leaderSession,
                    () -> "task manager " + id + " is registered with no job manager now");
            resources.add(() -> connector.close().get(10, TimeUnit.SECONDS));
            connector.start();
            LOG.info("Task manager {} started with {} slot(s): RPC on {}, data on {}; following the job manager leader of {}",
                    id, slots, rpc.address(), network.dataAddress(), local ? "jobmanager.rpc.host/port" : describeCluster(configuration));
            return new TaskManagerProcess(id, taskExecutor, connector, rpc, resources);
        } catch (Exception | Error e) {
            resources.close();
            throw e;
        }
    }

    /** Which cluster a task manager looks for, in words, for its logs. */
    static String describeCluster(Configuration c) {
        String type = c.get(HighAvailabilityOptions.TYPE);
        if (HighAvailabilityServicesLoader.ZOOKEEPER.equals(type)) {
            return "cluster '" + c.getString("high-availability.cluster-id").orElse("default")
                    + "' (high-availability.cluster-id) in ZooKeeper " + c.getString("high-availability.zookeeper.quorum")
                    .orElse("(no quorum set)") + " under " + c.getString("high-availability.zookeeper.root").orElse("/sluice");
        }
        return "the cluster of the HA services '" + type + "'";
    }

    public String id() {
        return id;
    }

    public TaskExecutor taskExecutor() {
        return taskExecutor;
    }

    /** Where this task manager's RPC server listens. */
    public RpcAddress rpcAddress() {
        return rpc.address();
    }

    public JobManagerConnector connector() {
        return connector;
    }

    /** Leaves the job manager (its slots go at once), cancels the running tasks, stops the servers. Blocking. */
    @Override
    public void close() {
        resources.close();
    }
}
