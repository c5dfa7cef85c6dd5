package io.sluice.cluster;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.config.ClusterOptions;
import io.sluice.dispatcher.Dispatcher;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.jar.UserCodeClassLoaders;
import io.sluice.job.JobResult;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.network.LocalShuffleService;
import io.sluice.network.netty.NettyShuffleEnvironment;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.slots.SlotPool;
import io.sluice.storage.BlobStore;
import io.sluice.taskexecutor.TaskExecutor;
import io.sluice.util.Clock;
import io.sluice.util.SystemClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

/**
 * A whole Sluice cluster in one JVM: task executors with slots, the in-JVM shuffle, and one or more
 * job managers (Dispatcher + job manager runners) on shared HA services. Every component keeps its
 * own main thread, exactly as in a distributed deployment; only the gateways are local calls (or,
 * with {@link Builder#remoteRpc(boolean)}, network RPC over loopback between job masters and task
 * executors).
 *
 * <pre>{@code
 * try (LocalCluster cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(2).build()) {
 *     JobResult result = cluster.executeAndWait(env.buildJobGraph("my job"), Duration.ofMinutes(1));
 * }
 * }</pre>
 *
 * <p>This class is the client-facing API (submit, wait, find the leader, reach the parts) and its
 * {@link Builder}; the parts and their wiring are {@link LocalClusterComponents}, the wait for a
 * dispatcher leader {@link DispatcherLeaderWait}.
 *
 * <p>Threading: any thread that is not a main thread of the cluster (the calls block); build and close
 * on one thread.
 */
public final class LocalCluster implements AutoCloseable {
    /** The endpoint name of a task executor on its RPC service. */
    public static final String TASK_EXECUTOR_ENDPOINT = "taskexecutor";
    /** How long {@link #dispatcher()} waits for a dispatcher leader. */
    public static final Duration LEADER_WAIT = Duration.ofSeconds(10);

    private final LocalClusterComponents components;
    private final DispatcherLeaderWait leader = new DispatcherLeaderWait();

    /** One job manager: its Dispatcher and main thread. */
    public record JobManager(String id, Dispatcher dispatcher, DedicatedMainThreadExecutor mainThread) {
    }

    private LocalCluster(Builder b) {
        this.components = new LocalClusterComponents(b, leader::leadershipChanged);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts another job manager on the same HA services. It joins the dispatcher election and is a
     * standby while another job manager leads; it takes over (and recovers the stored jobs) when the
     * leader stops.
     */
    public JobManager startJobManager() {
        return components.startJobManager();
    }

    /** Stops a job manager as if its process died: its jobs are suspended, others may take over. */
    public void stopJobManager(JobManager jm) throws Exception {
        components.stopJobManager(jm);
    }

    /**
     * The gateway of the current dispatcher leader, found through the HA services' dispatcher leader
     * retrieval: the job manager it names, once that one acts as leader. Waits (blocking the caller,
     * woken when a Dispatcher's leadership changes) up to {@link #LEADER_WAIT} if none leads yet, e.g. right after start or
     * during a failover; then fails naming the job managers. Use {@link #jobManagers()} to address a
     * specific job manager (a standby, say).
     */
    public DispatcherGateway dispatcher() {
        return leader.await(components.ha, components::jobManagers, LEADER_WAIT);
    }

    /** The running job managers in start order (the first is not necessarily the dispatcher leader). */
    public List<JobManager> jobManagers() {
        return components.jobManagers();
    }

    public JobId submit(JobGraph jobGraph) throws Exception {
        return dispatcher().submitJob(jobGraph).get(60, TimeUnit.SECONDS);
    }

    /**
     * Submits {@code jobGraph} to start from a retained checkpoint: a checkpoint directory
     * ({@code <checkpoints.dir>/<jobId>/chk-<n>}) or its {@code _metadata} file, or
     * {@code latest:<jobId>} (for example of a job that FAILED). Same as setting
     * {@code checkpoints.restore-from}; the checkpoint is read when the job recovers, and a path that
     * holds no readable checkpoint fails the job naming it.
     */
    public JobId submit(JobGraph jobGraph, String restoreFrom) throws Exception {
        return submit(jobGraph.withConfig(jobGraph.config().withRestoreFrom(restoreFrom)));
    }

    /** Submits and waits until the job is globally terminal. */
    public JobResult executeAndWait(JobGraph jobGraph, Duration timeout) throws Exception {
        JobId id = submit(jobGraph);
        try {
            return dispatcher().requestJobResult(id).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new TimeoutException("Job " + id + " did not end within " + timeout);
        }
    }

    public CheckpointStorageRegistry checkpointStorages() {
        return components.storages;
    }

    /**
     * The in-memory shuffle shared by the task executors. With {@link Builder#networkDataExchange} each
     * task executor has its own environment instead ({@link #networkEnvironments()}), and this throws.
     */
    public LocalShuffleService shuffle() {
        if (components.shuffle == null) {
            throw new IllegalStateException("This cluster exchanges data over TCP: every task executor has its own"
                    + " shuffle environment (networkEnvironments())");
        }
        return components.shuffle;
    }

    /** The data exchange of each task executor, in task executor order; empty without network data exchange. */
    public List<NettyShuffleEnvironment> networkEnvironments() {
        return List.copyOf(components.networkEnvironments);
    }

    public SlotPool slotPool() {
        return components.slotPool;
    }

    public List<TaskExecutor> taskExecutors() {
        return components.taskExecutors();
    }

    public HighAvailabilityServices haServices() {
        return components.ha;
    }

    /** The class loaders of the jobs from jars, shared by this cluster's job managers and task executors. */
    public UserCodeClassLoaders userCodeClassLoaders() {
        return components.userCode;
    }

    /** The I/O executor of this cluster (storage, HA stores, jar handling). */
    public ExecutorService ioExecutor() {
        return components.ioExecutor;
    }

    @Override
    public void close() {
        components.close();
    }

    /** Settings of a local cluster. */
    public static final class Builder {
        // Read by LocalClusterComponents when the cluster is built.
        int taskExecutors = 2;
        int slotsPerTaskExecutor = 2;
        int buffersPerChannel = LocalShuffleService.DEFAULT_BUFFERS_PER_CHANNEL;
        int bufferSize = LocalShuffleService.DEFAULT_BUFFER_SIZE;
        java.time.Duration inFlightTarget = LocalShuffleService.DEFAULT_IN_FLIGHT_TARGET;
        HighAvailabilityServices haServices;
        boolean closeHaServices = true;
        UnaryOperator<BlobStore> blobStoreDecorator = UnaryOperator.identity();
        MeterRegistry meterRegistry = new SimpleMeterRegistry();
        Clock clock = SystemClock.INSTANCE;
        long seed = System.nanoTime();
        RecoveryBackoff recoveryBackoff = RecoveryBackoff.DEFAULT;
        io.sluice.config.Configuration configuration = new io.sluice.config.Configuration();
        boolean networkDataExchange;
        boolean remoteRpc;
        io.sluice.security.tls.InternalTls internalTls;

        /**
         * Mutual TLS on the loopback connections of {@link #remoteRpc} and {@link #networkDataExchange}
         * ({@code null}, the default: plain TCP).
         */
        public Builder internalTls(io.sluice.security.tls.InternalTls tls) {
            this.internalTls = tls;
            return this;
        }

        /**
         * With {@code true}, job masters reach the task executors only through network RPC over
         * loopback TCP: each task executor is exposed on its own RPC service (endpoint
         * {@value LocalCluster#TASK_EXECUTOR_ENDPOINT}), the slot pool holds remote proxies, and a job
         * master passes itself to its tasks by reference, so their state updates and checkpoint
         * acknowledgements come back over RPC too ({@code rpc.*} options from {@link #configuration}).
         * Default {@code false}: local calls.
         */
        public Builder remoteRpc(boolean remote) {
            this.remoteRpc = remote;
            return this;
        }

        public Builder taskExecutors(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("A cluster needs at least one task executor, got " + n);
            }
            this.taskExecutors = n;
            return this;
        }

        public Builder slotsPerTaskExecutor(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("A task executor needs at least one slot, got " + n);
            }
            this.slotsPerTaskExecutor = n;
            return this;
        }

        public Builder buffersPerChannel(int n) {
            this.buffersPerChannel = n;
            return this;
        }

        /**
         * With {@code true}, every task executor gets its own data server on 127.0.0.1 (a free port)
         * and channels between tasks of different task executors go over TCP with credit-based flow
         * control, exactly as between task manager processes; channels within a task executor stay in
         * memory. Default {@code false}: every channel in memory. Slots are handed out task executor
         * by task executor, so give each one slot (or a job as many subtasks as a task executor has
         * slots, plus one) for a job's channels to cross task executors.
         */
        public Builder networkDataExchange(boolean enabled) {
            this.networkDataExchange = enabled;
            return this;
        }

        public Builder bufferSize(int bytes) {
            this.bufferSize = bytes;
            return this;
        }

        /** HA services to use (default: in memory). The cluster closes them on close unless told otherwise. */
        public Builder haServices(HighAvailabilityServices ha, boolean closeOnClusterClose) {
            this.haServices = ha;
            this.closeHaServices = closeOnClusterClose;
            return this;
        }

        /**
         * Uses the embedded HA services on {@code directory} (job graphs, job results and checkpoint
         * pointers kept there), so that a cluster started later on the same directory resumes the
         * unfinished jobs. Without this (and without {@link #haServices}) nothing survives the cluster.
         */
        public Builder haDirectory(java.nio.file.Path directory) {
            this.haServices = new io.sluice.ha.embedded.EmbeddedHaServices(directory);
            this.closeHaServices = true;
            return this;
        }

        /**
         * Uses the HA services that {@code configuration} selects ({@code high-availability.type}:
         * {@code embedded} on {@code high-availability.dir}, {@code memory}, or a factory class name).
         */
        public Builder haServices(io.sluice.config.Configuration configuration) throws Exception {
            this.haServices = io.sluice.ha.loader.HighAvailabilityServicesLoader.load(configuration);
            this.closeHaServices = true;
            return this;
        }

        /** Wraps every checkpoint blob store, e.g. with a fault injector. */
        public Builder blobStoreDecorator(UnaryOperator<BlobStore> decorator) {
            this.blobStoreDecorator = decorator;
            return this;
        }

        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = registry;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public Builder recoveryBackoff(RecoveryBackoff backoff) {
            this.recoveryBackoff = backoff;
            return this;
        }

        /**
         * Settings of the cluster: {@code cluster.task-executors}, {@code cluster.slots-per-task-executor}
         * and {@code network.*} (when set, they replace what the builder had), and the settings of the
         * checkpoint blob stores, passed to {@link io.sluice.storage.BlobStores} for every checkpoint
         * location (for example the {@code s3.*} options of {@code sluice-storage-s3}). Copied; every
         * key is validated ({@link io.sluice.config.Configuration#validateAll()}): an unknown key or an
         * invalid value is rejected naming the key. Default: empty (every default).
         */
        public Builder configuration(io.sluice.config.Configuration configuration) {
            configuration.validateAll();
            this.configuration = configuration.copy();
            if (configuration.contains(ClusterOptions.TASK_EXECUTORS)) {
                taskExecutors(configuration.get(ClusterOptions.TASK_EXECUTORS));
            }
            if (configuration.contains(ClusterOptions.SLOTS_PER_TASK_EXECUTOR)) {
                slotsPerTaskExecutor(configuration.get(ClusterOptions.SLOTS_PER_TASK_EXECUTOR));
            }
            if (configuration.contains(ClusterOptions.NETWORK_BUFFER_SIZE)) {
                bufferSize(configuration.get(ClusterOptions.NETWORK_BUFFER_SIZE));
            }
            if (configuration.contains(ClusterOptions.NETWORK_BUFFERS_PER_CHANNEL)) {
                buffersPerChannel(configuration.get(ClusterOptions.NETWORK_BUFFERS_PER_CHANNEL));
            }
            if (configuration.contains(ClusterOptions.NETWORK_IN_FLIGHT_TARGET)) {
                this.inFlightTarget = configuration.get(ClusterOptions.NETWORK_IN_FLIGHT_TARGET);
            }
            return this;
        }

        public LocalCluster build() {
            return new LocalCluster(this);
        }
    }
}
