package io.sluice.cluster.process;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.cluster.SlotPool;
import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.config.JobManagerOptions;
import io.sluice.dispatcher.Dispatcher;
import io.sluice.dispatcher.DispatcherGateway;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.HighAvailabilityServicesLoader;
import io.sluice.jar.UserCodeClassLoaders;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.rpc.MainThreadMetrics;
import io.sluice.util.SystemClock;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job manager of {@code sluice jobmanager}: HA services from the configuration, a Dispatcher
 * (with its job manager runners and job masters) on its own main thread, whose contender id in the
 * dispatcher election is where to reach this job manager, and the slot pool its job masters take
 * slots from. One of any number of job managers of a cluster leads (through the HA services); the
 * others are standbys that take over when it goes.
 *
 * <p>Threading: {@link #start} and {@link #close} block (they connect to and leave the HA services)
 * and are called on the command's thread; the accessors are thread-safe and answer from memory.
 */
public final class JobManagerProcess implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JobManagerProcess.class);

    private final String id;
    private final String contenderId;
    private final ExecutorService ioExecutor;
    private final HighAvailabilityServices ha;
    private final CheckpointStorageRegistry storages;
    private final UserCodeClassLoaders userCode;
    private final SlotPool slotPool;
    private final DedicatedMainThreadExecutor mainThread;
    private final Dispatcher dispatcher;

    private JobManagerProcess(String id, String contenderId, ExecutorService ioExecutor, HighAvailabilityServices ha,
                              CheckpointStorageRegistry storages, UserCodeClassLoaders userCode, SlotPool slotPool,
                              DedicatedMainThreadExecutor mainThread, Dispatcher dispatcher) {
        this.id = id;
        this.contenderId = contenderId;
        this.ioExecutor = ioExecutor;
        this.ha = ha;
        this.storages = storages;
        this.userCode = userCode;
        this.slotPool = slotPool;
        this.mainThread = mainThread;
        this.dispatcher = dispatcher;
    }

    /**
     * Connects to the HA services {@code configuration} selects, and starts the Dispatcher, which
     * joins the dispatcher election. Blocking.
     *
     * @param restUrl the base URL of this job manager's REST API (advertised to standbys and clients), or null
     */
    public static JobManagerProcess start(Configuration configuration, String restUrl, MeterRegistry metrics)
            throws Exception {
        configuration.validateAll();
        String id = ProcessIds.next("jobmanager");
        ExecutorService io = Executors.newCachedThreadPool(DaemonThreads.named("sluice-io-"));
        HighAvailabilityServices ha = null;
        CheckpointStorageRegistry storages = null;
        try {
            MainThreadMetrics.bind(metrics);
            ha = HighAvailabilityServicesLoader.load(configuration);
            storages = new CheckpointStorageRegistry(metrics, java.util.function.UnaryOperator.identity(), configuration);
            HighAvailabilityServices services = ha;
            UserCodeClassLoaders userCode = UserCodeClassLoaders.inTemporaryDirectory(services::jobJarStore, io);
            SlotPool slotPool = new SlotPool(List.of());
            String host = configuration.get(JobManagerOptions.RPC_HOST);
            String contenderId = id; // becomes the encoded address once the RPC server runs
            DedicatedMainThreadExecutor main = new DedicatedMainThreadExecutor(id);
            JobManagerServices jobManagerServices = new JobManagerServices(ha, storages, slotPool,
                    (jobId, deployment) -> { }, io, SystemClock.INSTANCE, new Random(), RecoveryBackoff.DEFAULT,
                    contenderId, userCode);
            Dispatcher dispatcher = new Dispatcher(jobManagerServices, main);
            dispatcher.onLeadershipChange(() -> LOG.info("Job manager {} {} the dispatcher", id,
                    dispatcher.isLeader() ? "now leads" : "no longer leads"));
            dispatcher.start();
            LOG.info("Job manager {} started on {} (REST {}); high availability: {}", id, host, restUrl,
                    configuration.get(HighAvailabilityOptions.TYPE));
            return new JobManagerProcess(id, contenderId, io, ha, storages, userCode, slotPool, main, dispatcher);
        } catch (Exception | Error e) {
            if (ha != null) {
                ha.close();
            }
            if (storages != null) {
                storages.close();
            }
            io.shutdownNow();
            throw e;
        }
    }

    /** This job manager's id (unique per process start). */
    public String id() {
        return id;
    }

    /** Its contender id in the dispatcher election (what leader retrieval reports while it leads). */
    public String contenderId() {
        return contenderId;
    }

    public Dispatcher dispatcher() {
        return dispatcher;
    }

    /**
     * The Dispatcher to ask for a client: this one while it leads; otherwise the leader's, when
     * another job manager leads and can be reached; else empty (no leader yet). From memory.
     */
    public Optional<DispatcherGateway> leaderDispatcher() {
        if (dispatcher.isLeader()) {
            return Optional.of(dispatcher);
        }
        return Optional.empty();
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
        return List.of();
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

    /** Leaves the dispatcher election and suspends the jobs this job manager runs (HA data kept). Blocking. */
    @Override
    public void close() {
        try {
            dispatcher.close().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("Could not stop job manager {} cleanly: {}", id, e.toString());
        }
        mainThread.close();
        ha.close();
        storages.close();
        ioExecutor.shutdown();
    }
}
