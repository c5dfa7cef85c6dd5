package io.sluice.it;

import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.slots.SlotPool;
import io.sluice.cluster.membership.ConnectionStatus;
import io.sluice.cluster.membership.HeartbeatSettings;
import io.sluice.cluster.membership.JobManagerAddress;
import io.sluice.cluster.membership.JobManagerConnector;
import io.sluice.cluster.membership.RegistrationBackoff;
import io.sluice.cluster.membership.TaskExecutorRegistration;
import io.sluice.cluster.membership.TaskExecutorRegistry;
import io.sluice.dispatcher.Dispatcher;
import io.sluice.ha.memory.InMemoryHaServices;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.network.LocalShuffleService;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.taskexecutor.TaskExecutor;
import io.sluice.util.SystemClock;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Cluster mode in one JVM, with local gateways where the processes use RPC: job managers (each a
 * Dispatcher on its own dynamic slot pool, with a task-executor registry) on shared in-memory HA
 * services, their contender ids being their {@link JobManagerAddress}es, and task executors that
 * find the leader by leader retrieval and register through a {@link JobManagerConnector}, with the
 * default heartbeat, backoff and restart settings and the system clock. The task executors share
 * one in-memory shuffle. Test code only.
 */
final class RegisteringCluster implements AutoCloseable {
    static final String CLUSTER_ID = "it-cluster";

    private final ExecutorService io = Executors.newCachedThreadPool();
    private final InMemoryHaServices ha = new InMemoryHaServices();
    private final LocalShuffleService shuffle = new LocalShuffleService();
    private final CheckpointStorageRegistry storages = new CheckpointStorageRegistry(new SimpleMeterRegistry());
    /** Job managers reachable by id (a stopped one is unreachable: connection refused). */
    private final Map<String, JobManager> routes = new ConcurrentHashMap<>();
    private final List<JobManager> jobManagers = new ArrayList<>();
    private final List<TaskManager> taskManagers = new ArrayList<>();
    private final List<DedicatedMainThreadExecutor> threads = new ArrayList<>();

    /** One job manager. */
    record JobManager(String id, Dispatcher dispatcher, SlotPool pool, TaskExecutorRegistry registry) {
    }

    /** One task executor, killable, and its connector. */
    record TaskManager(String id, KillableTaskExecutor gateway, JobManagerConnector connector) {
        ConnectionStatus status() throws Exception {
            return connector.status().get(5, TimeUnit.SECONDS);
        }
    }

    JobManager startJobManager(String id) {
        String address = new JobManagerAddress(id, "127.0.0.1", 6123, null).encode();
        SlotPool pool = SlotPool.dynamic();
        JobManagerServices services = new JobManagerServices(ha, storages, pool,
                (jobId, deployment) -> shuffle.releaseAttempt(jobId, deployment,
                        new IllegalStateException("deployment " + deployment + " of job " + jobId + " ended")),
                io, SystemClock.INSTANCE, new Random(1), RecoveryBackoff.DEFAULT, address);
        Dispatcher dispatcher = new Dispatcher(services, thread(id));
        TaskExecutorRegistry registry = new TaskExecutorRegistry(id, CLUSTER_ID, pool, dispatcher::isLeader,
                ha.dispatcherLeaderRetrieval()::currentLeader, thread(id + "-registry"), SystemClock.INSTANCE,
                HeartbeatSettings.DEFAULT);
        JobManager jm = new JobManager(id, dispatcher, pool, registry);
        routes.put(id, jm);
        jobManagers.add(jm);
        registry.start();
        dispatcher.start();
        return jm;
    }

    /** Stops a job manager: its jobs are suspended, its registry drops everything, and it becomes unreachable. */
    void stopJobManager(JobManager jm) throws Exception {
        routes.remove(jm.id());
        jm.dispatcher().close().get(30, TimeUnit.SECONDS);
        jm.registry().close().get(10, TimeUnit.SECONDS);
    }

    /** Starts a task executor with {@code slots} slots and waits (bounded) until it is registered. */
    TaskManager startTaskExecutor(String id, int slots) throws Exception {
        DedicatedMainThreadExecutor main = thread(id);
        TaskExecutor te = new TaskExecutor(id, slots, main, io, shuffle, storages);
        KillableTaskExecutor gateway = new KillableTaskExecutor(te);
        JobManagerConnector connector = new JobManagerConnector(
                new TaskExecutorRegistration(id, UUID.randomUUID().toString(), slots, null, CLUSTER_ID), gateway,
                te::cancelAllTasks, ha.dispatcherLeaderRetrieval(), address -> {
                    JobManager target = routes.get(address.id());
                    if (target == null) {
                        return new Unreachable(address);
                    }
                    return gateway.link(target.registry());
                }, main, SystemClock.INSTANCE, HeartbeatSettings.DEFAULT, RegistrationBackoff.DEFAULT);
        TaskManager tm = new TaskManager(id, gateway, connector);
        taskManagers.add(tm);
        connector.start();
        await(id + " registered").atMost(Duration.ofSeconds(30))
                .until(() -> tm.status().state() == ConnectionStatus.State.REGISTERED);
        return tm;
    }

    /** The Dispatcher that leads now, waiting (bounded) for one. */
    Dispatcher leader() {
        return await("a dispatcher leader").atMost(Duration.ofSeconds(30)).until(() -> jobManagers.stream()
                .filter(jm -> routes.containsKey(jm.id()) && jm.dispatcher().isLeader())
                .map(JobManager::dispatcher).findFirst().orElse(null), d -> d != null);
    }

    private DedicatedMainThreadExecutor thread(String name) {
        DedicatedMainThreadExecutor t = new DedicatedMainThreadExecutor(name);
        threads.add(t);
        return t;
    }

    @Override
    public void close() throws Exception {
        for (JobManager jm : jobManagers) {
            if (routes.remove(jm.id()) != null) {
                jm.dispatcher().close().get(30, TimeUnit.SECONDS);
                jm.registry().close().get(10, TimeUnit.SECONDS);
            }
        }
        for (TaskManager tm : taskManagers) {
            tm.connector().close().get(10, TimeUnit.SECONDS);
            tm.gateway().stopTasks().get(10, TimeUnit.SECONDS);
        }
        threads.forEach(DedicatedMainThreadExecutor::close);
        io.shutdownNow();
        ha.close();
        storages.close();
    }

    /** A job manager that is not running: every call is refused. */
    private record Unreachable(JobManagerAddress address)
            implements io.sluice.cluster.membership.TaskExecutorRegistryGateway {
        @Override
        public CompletableFuture<io.sluice.cluster.membership.RegistrationResponse> registerTaskExecutor(
                TaskExecutorRegistration registration, io.sluice.protocol.TaskExecutorGateway taskExecutor) {
            return refused();
        }

        @Override
        public CompletableFuture<io.sluice.cluster.membership.HeartbeatResponse> heartbeatFromTaskExecutor(
                String taskExecutorId, UUID registrationId) {
            return refused();
        }

        @Override
        public void disconnectTaskExecutor(String taskExecutorId, UUID registrationId, String reason) {
        }

        private <T> CompletableFuture<T> refused() {
            return CompletableFuture.failedFuture(new ConnectException("Connection refused: " + address.rpcAddress()));
        }
    }
}
