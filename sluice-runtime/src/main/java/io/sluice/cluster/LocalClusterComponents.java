package io.sluice.cluster;

import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.config.JobManagerOptions;
import io.sluice.dispatcher.Dispatcher;
import io.sluice.dispatcher.EndedJobRetention;
import io.sluice.graph.JobId;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.memory.InMemoryHaServices;
import io.sluice.jar.LiveJobClassLoaders;
import io.sluice.jar.UserCodeClassLoaders;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.jobmaster.RecoveryReads;
import io.sluice.network.LocalShuffleService;
import io.sluice.network.ShuffleEnvironment;
import io.sluice.network.netty.NettyShuffleEnvironment;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.rpc.MainThreadMetrics;
import io.sluice.rpc.MainThreadPool;
import io.sluice.rpc.remote.RpcService;
import io.sluice.slots.SlotPool;
import io.sluice.state.StateBackends;
import io.sluice.taskexecutor.KeyedStateBackendFactory;
import io.sluice.taskexecutor.TaskExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts of a {@link LocalCluster} and how they are wired: the I/O executor, checkpoint storages,
 * HA services and user-code class loaders shared by everything; the task executors, each on its own
 * main thread with its state backends and its shuffle (the shared in-memory one, or its own TCP data
 * exchange), reached directly or, with remote RPC, through loopback RPC proxies in the slot pool; and
 * the job managers (a Dispatcher on its own main thread, its jobs on threads of a shared pool). Closing
 * stops them in reverse order and lets the I/O already started finish.
 *
 * <p>Threading: built and closed by the thread that builds and closes the cluster;
 * {@link #startJobManager}, {@link #stopJobManager} and {@link #jobManagers} from any thread (the list
 * of job managers is guarded by itself).
 */
final class LocalClusterComponents {
    private static final Logger LOG = LoggerFactory.getLogger(LocalClusterComponents.class);
    /** How long {@link #close} waits for I/O already started. */
    static final Duration IO_DRAIN_TIMEOUT = Duration.ofSeconds(10);

    private final List<TaskExecutor> taskExecutors = new ArrayList<>();
    private final List<DedicatedMainThreadExecutor> executors = new ArrayList<>();
    /** Where every job's runner and job master borrow their main thread (all job managers of this cluster). */
    private final MainThreadPool jobThreads = new MainThreadPool("jobs", MainThreadPool.defaultSize());
    private final List<LocalCluster.JobManager> jobManagers = new ArrayList<>();
    private final AtomicInteger nextJobManager = new AtomicInteger();
    /** The in-memory shuffle shared by all task executors; {@code null} with network data exchange. */
    final LocalShuffleService shuffle;
    /** One per task executor with network data exchange; empty without. */
    final List<NettyShuffleEnvironment> networkEnvironments = new ArrayList<>();
    final SlotPool slotPool;
    final CheckpointStorageRegistry storages;
    final HighAvailabilityServices ha;
    final ExecutorService ioExecutor;
    final UserCodeClassLoaders userCode;
    private final LocalCluster.Builder config;
    /** Told when a job manager's Dispatcher gains or loses leadership. */
    private final Runnable leadershipChanged;
    /** With remote RPC: the job managers' RPC service, then one per task executor. */
    private final List<RpcService> rpcServices = new ArrayList<>();
    /** One per task executor, closed with the cluster. */
    private final List<StateBackends> stateBackends = new ArrayList<>();

    /** Starts the task executors and the first job manager as {@code b} says. */
    LocalClusterComponents(LocalCluster.Builder b, Runnable leadershipChanged) {
        this.config = b;
        this.leadershipChanged = leadershipChanged;
        this.ioExecutor = Executors.newCachedThreadPool(DaemonThreadFactory.numbered("sluice-io-"));
        this.shuffle = b.networkDataExchange ? null : new LocalShuffleService(b.buffersPerChannel, b.bufferSize,
                b.inFlightTarget);
        this.storages = new CheckpointStorageRegistry(b.meterRegistry, b.blobStoreDecorator, b.configuration);
        MainThreadMetrics.bind(b.meterRegistry);
        LiveJobClassLoaders.bind(b.meterRegistry);
        this.ha = b.haServices != null ? b.haServices : new InMemoryHaServices();
        this.userCode = UserCodeClassLoaders.inTemporaryDirectory(ha::jobJarStore, ioExecutor);
        for (int i = 0; i < b.taskExecutors; i++) {
            taskExecutors.add(startTaskExecutor(b, i));
        }
        this.slotPool = new SlotPool(b.remoteRpc ? remoteTaskExecutors(b) : taskExecutors);
        startJobManager();
    }

    private TaskExecutor startTaskExecutor(LocalCluster.Builder b, int i) {
        DedicatedMainThreadExecutor main = new DedicatedMainThreadExecutor("taskexecutor-" + i);
        executors.add(main);
        ShuffleEnvironment environment = shuffle;
        if (b.networkDataExchange) {
            NettyShuffleEnvironment network = NettyShuffleEnvironment.start("taskexecutor-" + i, "127.0.0.1",
                    "127.0.0.1", 0, b.buffersPerChannel, b.bufferSize, b.inFlightTarget, 1, b.internalTls);
            network.bindMetrics(b.meterRegistry);
            networkEnvironments.add(network);
            environment = network;
        }
        StateBackends backends = StateBackends.fromConfiguration(b.configuration);
        stateBackends.add(backends);
        return new TaskExecutor("taskexecutor-" + i, b.slotsPerTaskExecutor, main, ioExecutor,
                environment, storages, userCode, b.clock, KeyedStateBackendFactory.of(backends),
                io.sluice.taskexecutor.TaskLocalStateStore.directoryFor(b.configuration, "taskexecutor-" + i));
    }

    /**
     * Exposes every task executor on its own RPC service (endpoint {@code taskexecutor} on
     * 127.0.0.1, a free port) and returns proxies to them made by the job managers' RPC service, so
     * that job masters reach task executors only over loopback TCP (and pass themselves by reference).
     */
    private List<TaskExecutorGateway> remoteTaskExecutors(LocalCluster.Builder b) {
        RpcService jobManagerRpc = startRpc(b);
        List<TaskExecutorGateway> remote = new ArrayList<>();
        for (TaskExecutor te : taskExecutors) {
            RpcService rpc = startRpc(b);
            rpc.expose(LocalCluster.TASK_EXECUTOR_ENDPOINT, TaskExecutorGateway.class, te, null);
            remote.add(jobManagerRpc.remoteGateway(rpc.address(), LocalCluster.TASK_EXECUTOR_ENDPOINT,
                    TaskExecutorGateway.class, null, RpcService.synchronousGetters(TaskExecutorGateway.class, te)));
        }
        return remote;
    }

    private RpcService startRpc(LocalCluster.Builder b) {
        RpcService rpc = RpcService.builder().bind("127.0.0.1", 0)
                .configuration(b.configuration).clock(b.clock).tls(b.internalTls).start();
        rpcServices.add(rpc);
        return rpc;
    }

    /** Starts another job manager on the same HA services (see {@link LocalCluster#startJobManager()}). */
    LocalCluster.JobManager startJobManager() {
        String id = "jobmanager-" + nextJobManager.getAndIncrement(); // never reused: ids name election contenders
        DedicatedMainThreadExecutor main = new DedicatedMainThreadExecutor(id);
        JobManagerServices services = new JobManagerServices(ha, storages, slotPool,
                this::releaseDeployment,
                ioExecutor, config.clock, new Random(config.seed), config.recoveryBackoff, id, userCode,
                RecoveryBackoff.UNUSABLE_CHECKPOINTS, jobThreads::newMainThread,
                new RecoveryReads(config.configuration.get(JobManagerOptions.RECOVERY_MAX_CONCURRENT_READS), ioExecutor));
        // Each job's runner and job master on a main thread of its own (borrowed from the pool), never the Dispatcher's.
        Dispatcher dispatcher = new Dispatcher(services, main,
                EndedJobRetention.from(config.configuration),
                jobId -> jobThreads.newMainThread("runner-" + jobId.value().substring(0, 8)));
        dispatcher.onLeadershipChange(leadershipChanged);
        dispatcher.start();
        LocalCluster.JobManager jm = new LocalCluster.JobManager(id, dispatcher, main);
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
    void stopJobManager(LocalCluster.JobManager jm) throws Exception {
        synchronized (jobManagers) {
            jobManagers.remove(jm);
        }
        jm.dispatcher().close().get(30, TimeUnit.SECONDS);
    }

    /** The running job managers in start order. */
    List<LocalCluster.JobManager> jobManagers() {
        synchronized (jobManagers) {
            return List.copyOf(jobManagers);
        }
    }

    List<TaskExecutor> taskExecutors() {
        return List.copyOf(taskExecutors);
    }

    /** Stops the job managers, cancels the tasks, stops the task executors and frees what they shared. */
    void close() {
        for (LocalCluster.JobManager jm : jobManagers()) {
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
        stateBackends.forEach(StateBackends::close);
        awaitIo();
        taskExecutors.forEach(TaskExecutor::closeLocalState); // after the uploads: none keeps a file afterwards
        userCode.close(); // after the I/O that closes released loaders: the jar cache directory goes

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
}
