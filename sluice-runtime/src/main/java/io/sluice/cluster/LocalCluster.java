package io.sluice.cluster;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.config.ClusterOptions;
import io.sluice.config.Durations;
import io.sluice.dispatcher.Dispatcher;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.memory.InMemoryHaServices;
import io.sluice.jar.UserCodeClassLoaders;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.job.JobResult;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.network.LocalShuffleService;
import io.sluice.network.ShuffleEnvironment;
import io.sluice.network.netty.NettyShuffleEnvironment;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.rpc.MainThreadPool;
import io.sluice.config.JobManagerOptions;
import io.sluice.jobmaster.RecoveryReads;
import io.sluice.rpc.remote.RpcService;
import io.sluice.slots.SlotPool;
import io.sluice.storage.BlobStore;
import io.sluice.taskexecutor.TaskExecutor;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.util.Clock;
import io.sluice.util.SystemClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 */
public final class LocalCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);

    private final List<TaskExecutor> taskExecutors = new ArrayList<>();
    private final List<DedicatedMainThreadExecutor> executors = new ArrayList<>();
    /** Where every job's runner and job master borrow their main thread (all job managers of this cluster). */
    private final MainThreadPool jobThreads = new MainThreadPool("jobs", MainThreadPool.defaultSize());
    private final List<JobManager> jobManagers = new ArrayList<>();
    private final AtomicInteger nextJobManager = new AtomicInteger();
    /** The in-memory shuffle shared by all task executors; {@code null} with network data exchange. */
    private final LocalShuffleService shuffle;
    /** One per task executor with network data exchange; empty without. */
    private final List<NettyShuffleEnvironment> networkEnvironments = new ArrayList<>();
    private final SlotPool slotPool;
    private final CheckpointStorageRegistry storages;
    private final HighAvailabilityServices ha;
    private final ExecutorService ioExecutor;
    /** How long {@link #close} waits for I/O already started. */
    static final Duration IO_DRAIN_TIMEOUT = Duration.ofSeconds(10);
    private final UserCodeClassLoaders userCode;
    private final Builder config;
    /** With {@link Builder#remoteRpc(boolean)}: the job managers' RPC service, then one per task executor. */
    private final List<RpcService> rpcServices = new ArrayList<>();

    /** One job manager: its Dispatcher and main thread. */
    public record JobManager(String id, Dispatcher dispatcher, DedicatedMainThreadExecutor mainThread) {
    }

    /** One per task executor, closed with the cluster. */
    private final List<io.sluice.state.StateBackends> stateBackends = new ArrayList<>();

    private LocalCluster(Builder b) {
        this.config = b;
        this.ioExecutor = Executors.newCachedThreadPool(DaemonThreadFactory.numbered("sluice-io-"));
        this.shuffle = b.networkDataExchange ? null : new LocalShuffleService(b.buffersPerChannel, b.bufferSize);
        this.storages = new CheckpointStorageRegistry(b.meterRegistry, b.blobStoreDecorator, b.configuration);
        io.sluice.rpc.MainThreadMetrics.bind(b.meterRegistry);
        io.sluice.jar.LiveJobClassLoaders.bind(b.meterRegistry);
        this.ha = b.haServices != null ? b.haServices : new InMemoryHaServices();
        this.userCode = UserCodeClassLoaders.inTemporaryDirectory(ha::jobJarStore, ioExecutor);
        for (int i = 0; i < b.taskExecutors; i++) {
            DedicatedMainThreadExecutor main = new DedicatedMainThreadExecutor("taskexecutor-" + i);
            executors.add(main);
            ShuffleEnvironment environment = shuffle;
            if (b.networkDataExchange) {
                NettyShuffleEnvironment network = NettyShuffleEnvironment.start("taskexecutor-" + i, "127.0.0.1",
                        "127.0.0.1", 0, b.buffersPerChannel, b.bufferSize, 1, b.internalTls);
                network.bindMetrics(b.meterRegistry);
                networkEnvironments.add(network);
                environment = network;
            }
            io.sluice.state.StateBackends backends = io.sluice.state.StateBackends.fromConfiguration(b.configuration);
            stateBackends.add(backends);
            taskExecutors.add(new TaskExecutor("taskexecutor-" + i, b.slotsPerTaskExecutor, main, ioExecutor,
                    environment, storages, userCode, b.clock,
                    io.sluice.taskexecutor.KeyedStateBackendFactory.of(backends)));
        }
        this.slotPool = new SlotPool(b.remoteRpc ? remoteTaskExecutors(b) : taskExecutors);
        startJobManager();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Exposes every task executor on its own RPC service (endpoint {@code taskexecutor} on
     * 127.0.0.1, a free port) and returns proxies to them made by the job managers' RPC service, so
     * that job masters reach task executors only over loopback TCP (and pass themselves by reference).
     */
    private List<TaskExecutorGateway> remoteTaskExecutors(Builder b) {
        RpcService jobManagerRpc = startRpc(b);
        List<TaskExecutorGateway> remote = new ArrayList<>();
        for (TaskExecutor te : taskExecutors) {
            RpcService rpc = startRpc(b);
            rpc.expose(TASK_EXECUTOR_ENDPOINT, TaskExecutorGateway.class, te, null);
            remote.add(jobManagerRpc.remoteGateway(rpc.address(), TASK_EXECUTOR_ENDPOINT, TaskExecutorGateway.class, null,
                    RpcService.synchronousGetters(TaskExecutorGateway.class, te)));
        }
        return remote;
    }

    private RpcService startRpc(Builder b) {
        RpcService rpc = RpcService.builder().bind("127.0.0.1", 0)
                .configuration(b.configuration).clock(b.clock).tls(b.internalTls).start();
        rpcServices.add(rpc);
        return rpc;
    }

    /** The endpoint name of a task executor on its RPC service. */
    public static final String TASK_EXECUTOR_ENDPOINT = "taskexecutor";

    /**
     * Starts another job manager on the same HA services. It joins the dispatcher election and is a
     * standby while another job manager leads; it takes over (and recovers the stored jobs) when the
     * leader stops.
     */
    public JobManager startJobManager() {
        String id = "jobmanager-" + nextJobManager.getAndIncrement(); // never reused: ids name election contenders
        DedicatedMainThreadExecutor main = new DedicatedMainThreadExecutor(id);
        JobManagerServices services = new JobManagerServices(ha, storages, slotPool,
                this::releaseDeployment,
                ioExecutor, config.clock, new Random(config.seed), config.recoveryBackoff, id, userCode,
                RecoveryBackoff.UNUSABLE_CHECKPOINTS, jobThreads::newMainThread,
                new RecoveryReads(config.configuration.get(JobManagerOptions.RECOVERY_MAX_CONCURRENT_READS), ioExecutor));
        // Each job's runner and job master on a main thread of its own (borrowed from the pool), never the Dispatcher's.
        Dispatcher dispatcher = new Dispatcher(services, main,
                io.sluice.dispatcher.EndedJobRetention.from(config.configuration),
                jobId -> jobThreads.newMainThread("runner-" + jobId.value().substring(0, 8)));
        dispatcher.onLeadershipChange(this::leadershipChanged);
        dispatcher.start();
        JobManager jm = new JobManager(id, dispatcher, main);
        synchronized (jobManagers) {
            jobManagers.add(jm);
        }
        return jm;
    }

    /** Releases the channels of a deployment round in every task executor's environment. */
    private void releaseDeployment(JobId jobId, int deployment) {
        IllegalStateException cause = new IllegalStateException("deployment " + deployment + " of job " + jobId + " ended");
        if (shuffle != null) {
            shuffle.releaseAttempt(jobId, deployment, cause);
        }
        for (NettyShuffleEnvironment network : networkEnvironments) {
            network.releaseAttempt(jobId, deployment, cause);
        }
    }

        /** Stops a job manager as if its process died: its jobs are suspended, others may take over. */
    public void stopJobManager(JobManager jm) throws Exception {
        synchronized (jobManagers) {
            jobManagers.remove(jm);
        }
        jm.dispatcher().close().get(30, TimeUnit.SECONDS);
    }

    /**
     * The gateway of the current dispatcher leader, found through the HA services' dispatcher leader
     * retrieval: the job manager it names, once that one acts as leader. Waits (blocking the caller,
     * woken when a Dispatcher's leadership changes) up to {@link #LEADER_WAIT} if none leads yet, e.g. right after start or
     * during a failover; then fails naming the job managers. Use {@link #jobManagers()} to address a
     * specific job manager (a standby, say).
     */
    public DispatcherGateway dispatcher() {
        long deadline = System.nanoTime() + LEADER_WAIT.toNanos();
        synchronized (leadership) {
            while (true) {
                java.util.Optional<String> leader = ha.dispatcherLeaderRetrieval().currentLeader();
                List<JobManager> running;
                synchronized (jobManagers) {
                    running = List.copyOf(jobManagers);
                }
                for (JobManager jm : running) {
                    if (leader.isPresent() && jm.id().equals(leader.get()) && jm.dispatcher().isLeader()) {
                        return jm.dispatcher();
                    }
                }
                long remainingNanos = deadline - System.nanoTime();
                if (remainingNanos <= 0) {
                    throw new IllegalStateException("No job manager of this cluster leads the dispatcher after "
                            + Durations.describe(LEADER_WAIT) + " (leader retrieval reports " + leader.orElse("no leader")
                            + "; running job managers: " + running.stream().map(JobManager::id).toList() + ")");
                }
                try {
                    // Woken by a Dispatcher's leadership change or a leader-retrieval update; the bounded
                    // wait also covers a retrieval update that arrives without a Dispatcher change.
                    java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(leadership, Math.min(remainingNanos, 50_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while waiting for a dispatcher leader", e);
                }
            }
        }
    }

    /** Wakes {@link #dispatcher()} callers waiting for a leader. */
    private void leadershipChanged() {
        synchronized (leadership) {
            leadership.notifyAll();
        }
    }

    private final Object leadership = new Object();

    /** How long {@link #dispatcher()} waits for a dispatcher leader. */
    public static final Duration LEADER_WAIT = Duration.ofSeconds(10);

    /** The running job managers in start order (the first is not necessarily the dispatcher leader). */
    public List<JobManager> jobManagers() {
        synchronized (jobManagers) {
            return List.copyOf(jobManagers);
        }
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
        return storages;
    }

    /**
     * The in-memory shuffle shared by the task executors. With {@link Builder#networkDataExchange} each
     * task executor has its own environment instead ({@link #networkEnvironments()}), and this throws.
     */
    public LocalShuffleService shuffle() {
        if (shuffle == null) {
            throw new IllegalStateException("This cluster exchanges data over TCP: every task executor has its own"
                    + " shuffle environment (networkEnvironments())");
        }
        return shuffle;
    }

    /** The data exchange of each task executor, in task executor order; empty without network data exchange. */
    public List<NettyShuffleEnvironment> networkEnvironments() {
        return List.copyOf(networkEnvironments);
    }

    public SlotPool slotPool() {
        return slotPool;
    }

    public List<TaskExecutor> taskExecutors() {
        return List.copyOf(taskExecutors);
    }

    public HighAvailabilityServices haServices() {
        return ha;
    }

    /** The class loaders of the jobs from jars, shared by this cluster's job managers and task executors. */
    public UserCodeClassLoaders userCodeClassLoaders() {
        return userCode;
    }

    /** The I/O executor of this cluster (storage, HA stores, jar handling). */
    public ExecutorService ioExecutor() {
        return ioExecutor;
    }

    @Override
    public void close() {
        for (JobManager jm : jobManagers()) {
            try {
                jm.dispatcher().close().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.warn("Could not stop {} cleanly: {}", jm.id(), e.toString());
            }
            jm.mainThread().close();
        }
        synchronized (jobManagers) {
            jobManagers.clear();
        }
        for (TaskExecutor te : taskExecutors) {
            try {
                te.cancelAll().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.warn("Could not cancel the tasks of {}: {}", te.id(), e.toString());
            }
        }
        executors.forEach(DedicatedMainThreadExecutor::close);
        jobThreads.close();
        networkEnvironments.forEach(NettyShuffleEnvironment::close);
        rpcServices.forEach(RpcService::close);
        if (config.closeHaServices) {
            ha.close();
        }
        storages.close();
        // Shared state resources (RocksDB's per-slot memory) go once the last task using them closed its backend.
        stateBackends.forEach(io.sluice.state.StateBackends::close);
        awaitIo();
    }

    /**
     * Lets the I/O started before {@link #close} finish (a subsumed checkpoint's deletion, a last
     * result write), so nothing writes to or deletes from the cluster's directories after close
     * returns; I/O still blocked after {@link #IO_DRAIN_TIMEOUT} (a stalled store) is interrupted.
     */
    private void awaitIo() {
        ioExecutor.shutdown();
        try {
            if (!ioExecutor.awaitTermination(IO_DRAIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("Storage or HA I/O still running {} s after the cluster closed; interrupting it",
                        IO_DRAIN_TIMEOUT.toSeconds());
                ioExecutor.shutdownNow();
            }
        } catch (InterruptedException e) {
            ioExecutor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** Settings of a local cluster. */
    public static final class Builder {
        private int taskExecutors = 2;
        private int slotsPerTaskExecutor = 2;
        private int buffersPerChannel = LocalShuffleService.DEFAULT_BUFFERS_PER_CHANNEL;
        private int bufferSize = LocalShuffleService.DEFAULT_BUFFER_SIZE;
        private HighAvailabilityServices haServices;
        private boolean closeHaServices = true;
        private UnaryOperator<BlobStore> blobStoreDecorator = UnaryOperator.identity();
        private MeterRegistry meterRegistry = new SimpleMeterRegistry();
        private Clock clock = SystemClock.INSTANCE;
        private long seed = System.nanoTime();
        private RecoveryBackoff recoveryBackoff = RecoveryBackoff.DEFAULT;
        private io.sluice.config.Configuration configuration = new io.sluice.config.Configuration();
        private boolean networkDataExchange;
        private boolean remoteRpc;
        private io.sluice.security.tls.InternalTls internalTls;

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
            return this;
        }

        public LocalCluster build() {
            return new LocalCluster(this);
        }
    }
}
