package io.sluice.cluster.process;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.config.TaskManagerOptions;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.HighAvailabilityServicesLoader;
import io.sluice.jar.FileJobJarStore;
import io.sluice.jar.JobJarStore;
import io.sluice.jar.UserCodeClassLoaders;
import io.sluice.network.LocalShuffleService;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.rpc.MainThreadMetrics;
import io.sluice.taskexecutor.TaskExecutor;
import io.sluice.util.SystemClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task manager of {@code sluice taskmanager --slots N}: a {@link TaskExecutor} with its slots,
 * the jars of the jobs it runs tasks of (fetched from the HA job jar store, their digest checked, in
 * a class loader per job released with the job's last task here), following the dispatcher leader
 * through the HA services' leader retrieval.
 *
 * <p>Which job managers it follows: with {@code high-availability.type: zookeeper} (several hosts)
 * the leader that ZooKeeper names for {@code high-availability.cluster-id}; with {@code embedded}
 * (one job manager, on this host) the one at {@code jobmanager.rpc.host:jobmanager.rpc.port}, whose
 * job jars it reads from {@code <high-availability.dir>/jobjars}.
 *
 * <p>Threading: {@link #start} and {@link #close} block and run on the command's thread; the task
 * executor has its own main thread; jar fetches run on the I/O executor.
 */
public final class TaskManagerProcess implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerProcess.class);
    /** How often a task manager that finds no leader says so. */
    static final Duration NO_LEADER_REPORT_PERIOD = Duration.ofSeconds(10);

    private final String id;
    private final ExecutorService ioExecutor;
    private final ScheduledExecutorService timer;
    private final HighAvailabilityServices ha;
    private final CheckpointStorageRegistry storages;
    private final DedicatedMainThreadExecutor mainThread;
    private final TaskExecutor taskExecutor;
    private final NoLeaderReporter noLeader;

    private TaskManagerProcess(String id, ExecutorService ioExecutor, ScheduledExecutorService timer,
                               HighAvailabilityServices ha, CheckpointStorageRegistry storages,
                               DedicatedMainThreadExecutor mainThread, TaskExecutor taskExecutor, NoLeaderReporter noLeader) {
        this.id = id;
        this.ioExecutor = ioExecutor;
        this.timer = timer;
        this.ha = ha;
        this.storages = storages;
        this.mainThread = mainThread;
        this.taskExecutor = taskExecutor;
        this.noLeader = noLeader;
    }

    /** Starts the task executor with {@code slots} slots and starts following the job manager leader. Blocking. */
    public static TaskManagerProcess start(Configuration configuration, int slots, MeterRegistry metrics) throws Exception {
        configuration.validateAll();
        String id = ProcessIds.next("taskmanager");
        ExecutorService io = Executors.newCachedThreadPool(DaemonThreads.named("sluice-io-"));
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("sluice-tm-timer-"));
        HighAvailabilityServices ha = null;
        CheckpointStorageRegistry storages = null;
        try {
            MainThreadMetrics.bind(metrics);
            String type = configuration.get(HighAvailabilityOptions.TYPE);
            boolean local = HighAvailabilityServicesLoader.EMBEDDED.equals(type) || HighAvailabilityServicesLoader.MEMORY.equals(type);
            JobJarStore jars;
            NoLeaderReporter noLeader = null;
            if (local) {
                jars = HighAvailabilityServicesLoader.EMBEDDED.equals(type)
                        ? new FileJobJarStore(Path.of(configuration.get(HighAvailabilityOptions.DIRECTORY)).resolve("jobjars"))
                        : JobJarStore.unsupported("memory", "use high-availability.type: zookeeper with"
                                + " high-availability.storage-dir to run jobs from jars on task managers");
            } else {
                ha = HighAvailabilityServicesLoader.load(configuration);
                jars = ha.jobJarStore();
                noLeader = new NoLeaderReporter(ha.dispatcherLeaderRetrieval(), "Task manager " + id,
                        describeCluster(configuration), NO_LEADER_REPORT_PERIOD, timer);
            }
            storages = new CheckpointStorageRegistry(metrics, java.util.function.UnaryOperator.identity(), configuration);
            JobJarStore jobJars = jars;
            UserCodeClassLoaders userCode = UserCodeClassLoaders.inTemporaryDirectory(() -> jobJars, io);
            DedicatedMainThreadExecutor main = new DedicatedMainThreadExecutor(id);
            TaskExecutor taskExecutor = new TaskExecutor(id, slots, main, io, new LocalShuffleService(), storages, userCode,
                    SystemClock.INSTANCE);
            LOG.info("Task manager {} started with {} slot(s) on {}; high availability: {}", id, slots,
                    configuration.get(TaskManagerOptions.HOST), type);
            return new TaskManagerProcess(id, io, timer, ha, storages, main, taskExecutor, noLeader);
        } catch (Exception | Error e) {
            if (ha != null) {
                ha.close();
            }
            if (storages != null) {
                storages.close();
            }
            io.shutdownNow();
            timer.shutdownNow();
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

    /** Cancels the running tasks and leaves the cluster. Blocking. */
    @Override
    public void close() {
        if (noLeader != null) {
            noLeader.close();
        }
        try {
            taskExecutor.cancelAll().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("Could not cancel the tasks of task manager {}: {}", id, e.toString());
        }
        mainThread.close();
        if (ha != null) {
            ha.close();
        }
        storages.close();
        timer.shutdownNow();
        ioExecutor.shutdown();
    }
}
