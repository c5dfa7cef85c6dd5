package io.sluice.ha.zookeeper;

import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.graph.JobId;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.JobGraphStore;
import io.sluice.ha.JobResultStore;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeadershipLostException;
import io.sluice.config.Durations;
import io.sluice.jar.JobJarStore;
import io.sluice.storage.BlobStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link HighAvailabilityServices} on Apache ZooKeeper (through Apache Curator). Layout under
 * {@code <base> = <root>/<clusterId>}:
 * <pre>
 *   &lt;base&gt;/leaders/job-&lt;jobId&gt;/            LeaderLatch of the job (one ephemeral sequential node per contender)
 *   &lt;base&gt;/leaders/dispatcher/              LeaderLatch of the dispatcher (node data: the contender id)
 *   &lt;base&gt;/jobgraphs/&lt;jobId&gt;                 JobGraph.toBytes()
 *   &lt;base&gt;/jobresults/&lt;jobId&gt;                Java-serialized JobResult
 *   &lt;base&gt;/checkpoints/&lt;jobId&gt;/&lt;id, 19 digits&gt; metadata path of a retained checkpoint (UTF-8)
 *   &lt;base&gt;/checkpoint-counters/&lt;jobId&gt;       next checkpoint id (decimal), compare-and-set on the znode version
 *   &lt;base&gt;/jobjars/&lt;jobId&gt;                   SHA-256 and storage key of the job's jar (bytes in high-availability.storage-dir)
 *   &lt;base&gt;/savepoints/&lt;jobId&gt;/&lt;id, 19 digits&gt;  entry of a savepoint of the job (text: {@link io.sluice.ha.SavepointEntry})
 *   &lt;base&gt;/leader-settings                  the dispatcher leader's contender id and the settings job managers share
 * </pre>
 *
 * <h2>Fencing</h2>
 * A leader's identity in ZooKeeper is its <em>latch node</em>: the ephemeral sequential znode its
 * {@code LeaderLatch} created under {@code leaders/job-<jobId>}. A contender leads exactly while
 * its latch node is the lowest one; no other contender can be granted while that node exists,
 * and the node disappears when its session expires or the contender leaves. Its path is unique
 * (sequence numbers are never reused), so "this exact node still exists" means "no one else can
 * have been granted since my grant".
 *
 * <p>{@link ZooKeeperLeaderElection#runIfLeader} (1) checks the session in memory under the
 * election's fence lock (revocations take the same lock, so once a revocation was delivered no
 * write of the old session starts or is still running), and (2) runs the write with a
 * thread-local <em>fence</em> naming the latch node recorded at grant time. Every ZooKeeper write
 * of this module ({@link #commit}) is one ZooKeeper transaction ({@code multi}); when a fence is
 * active on the calling thread, its first operation is {@code check(latchNode)}. So if the
 * writer's session expired (or it left the election), its latch node is gone, the transaction
 * fails as a whole and the write is rejected with {@link LeadershipLostException} — even if the
 * writer still believes it leads (which, after a session expiry, both participants briefly do).
 * Pointer, job-result and job-graph writes of job masters all go through {@code runIfLeader}.
 * The Dispatcher's job graph put at submission runs inside its dispatcher leadership's
 * {@code runIfLeader}, so it checks the dispatcher latch node in the same transaction; writes made
 * with no fence active are plain transactions.
 *
 * <h2>Sessions and connection states</h2>
 * The stores use one client (ZooKeeper session) per services instance; each contender id gets its
 * own client, so two job managers sharing one instance (as in {@code LocalCluster}) hold
 * independent sessions and leaderships, exactly like two processes. Clients use Curator's
 * {@link SessionConnectionStateErrorPolicy} (only LOST is an error for the latch); the
 * {@code suspended-tolerance} policy on SUSPENDED is implemented by {@link ZooKeeperLeaderElection}.
 *
 * <p>Threading: thread-safe. The constructor blocks until connected (or fails naming the quorum).
 * {@link #jobLeaderElection} and {@link #close} do not talk to ZooKeeper on the caller's thread;
 * election callbacks run on one dedicated notification thread per instance, which makes no
 * ZooKeeper call itself: the elections' and the retrieval's ZooKeeper calls run on a
 * {@link SerialExecutor} per component over a shared pool. Store methods block and check that they
 * are not on a component main thread.
 */
public final class ZooKeeperHaServices implements HighAvailabilityServices {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperHaServices.class);
    private static final ThreadLocal<Fence> FENCE = new ThreadLocal<>();

    private final String quorum;
    private final String basePath;
    private final Duration sessionTimeout;
    private final Duration connectionTimeout;
    private final Duration retryBaseSleep;
    private final int maxRetries;
    private final Duration suspendedTolerance;
    private final CuratorFramework client;
    private final Map<String, CuratorFramework> contenderClients = new ConcurrentHashMap<>();
    private final ScheduledThreadPoolExecutor notifier;
    private final ExecutorService zooKeeperPool;
    private final ZooKeeperJobGraphStore jobGraphStore;
    private final ZooKeeperJobResultStore jobResultStore;
    private final JobJarStore jobJarStore;
    private final ZooKeeperLeaderSettingsStore leaderSettingsStore;
    private final ZooKeeperSavepointStore savepointStore;
    private final ZooKeeperCheckpointRecoveryFactory recoveryFactory;
    /** The elections made here and not closed yet (a closed election forgets itself: {@link #forget}). */
    private final List<ZooKeeperLeaderElection> elections = new ArrayList<>();
    private ZooKeeperLeaderRetrieval dispatcherRetrieval;
    private boolean closed;

    /** Connects (blocking, up to the connection timeout); without a jar storage, so jobs from jars are rejected. */
    public ZooKeeperHaServices(String quorum, String root, String clusterId, Duration sessionTimeout,
                               Duration connectionTimeout, Duration retryBaseSleep, int maxRetries,
                               Duration suspendedTolerance) throws InterruptedException {
        this(quorum, root, clusterId, sessionTimeout, connectionTimeout, retryBaseSleep, maxRetries, suspendedTolerance,
                null);
    }

    /**
     * Connects (blocking, up to the connection timeout).
     *
     * @param jarStorage the shared storage of job jars ({@code high-availability.storage-dir}), or null to
     *                   reject jobs from jars with a message naming that option
     */
    public ZooKeeperHaServices(String quorum, String root, String clusterId, Duration sessionTimeout,
                               Duration connectionTimeout, Duration retryBaseSleep, int maxRetries,
                               Duration suspendedTolerance, BlobStore jarStorage) throws InterruptedException {
        this.quorum = quorum;
        this.basePath = ZKPaths.makePath(root, clusterId);
        this.sessionTimeout = sessionTimeout;
        this.connectionTimeout = connectionTimeout;
        this.retryBaseSleep = retryBaseSleep;
        this.maxRetries = maxRetries;
        this.suspendedTolerance = suspendedTolerance;
        this.client = newClient();
        ZooKeeperGuard.check("connect", quorum);
        client.start();
        if (!client.blockUntilConnected((int) connectionTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
            client.close();
            throw new io.sluice.ha.HaServicesUnavailableException("Could not connect to ZooKeeper at " + quorum + " within "
                    + Durations.format(connectionTimeout) + " (" + ZooKeeperHaOptions.CONNECTION_TIMEOUT.key()
                    + "). Check " + ZooKeeperHaOptions.QUORUM.key() + " and that the ZooKeeper servers are running"
                    + " and reachable from this host.");
        }
        this.notifier = new ScheduledThreadPoolExecutor(1, DaemonThreadFactory.named("sluice-zk-election-" + clusterId));
        notifier.setRemoveOnCancelPolicy(true);
        this.zooKeeperPool = Executors.newCachedThreadPool(DaemonThreadFactory.numbered("sluice-zk-" + clusterId + "-"));
        this.leaderSettingsStore = new ZooKeeperLeaderSettingsStore(this, basePath,
                ZKPaths.makePath(basePath, "leader-settings"));
        this.jobGraphStore = new ZooKeeperJobGraphStore(this, ZKPaths.makePath(basePath, "jobgraphs"));
        this.jobResultStore = new ZooKeeperJobResultStore(this, ZKPaths.makePath(basePath, "jobresults"));
        this.savepointStore = new ZooKeeperSavepointStore(this, ZKPaths.makePath(basePath, "savepoints"));
        this.jobJarStore = jarStorage == null
                ? JobJarStore.unsupported("zookeeper (" + quorum + ")",
                        "set " + ZooKeeperHaOptions.STORAGE_DIR.key() + " to a location every job manager reaches"
                        + " (for example file:///shared/sluice-ha or s3://bucket/sluice-ha) to run jobs from jars")
                : new ZooKeeperJobJarStore(this, ZKPaths.makePath(basePath, "jobjars"), jarStorage, clusterId + "/jobjars");
        this.recoveryFactory = new ZooKeeperCheckpointRecoveryFactory(this,
                new ZooKeeperCheckpointPointerStore(this, ZKPaths.makePath(basePath, "checkpoints"),
                        ZKPaths.makePath(basePath, "checkpoint-counters")),
                ZKPaths.makePath(basePath, "checkpoint-counters"));
        LOG.info("Connected to ZooKeeper at {}; HA data under {}", quorum, basePath);
    }

    private CuratorFramework newClient() {
        return CuratorFrameworkFactory.builder()
                .connectString(quorum)
                .sessionTimeoutMs((int) sessionTimeout.toMillis())
                .connectionTimeoutMs((int) connectionTimeout.toMillis())
                .retryPolicy(new ExponentialBackoffRetry((int) retryBaseSleep.toMillis(), maxRetries))
                .connectionStateErrorPolicy(new SessionConnectionStateErrorPolicy())
                .build();
    }

    /** {@code <root>/<clusterId>}. */
    public String basePath() {
        return basePath;
    }

    public String quorum() {
        return quorum;
    }

    /** The client of the stores. */
    public CuratorFramework client() {
        return client;
    }

    /**
     * The client (ZooKeeper session) of {@code contenderId}'s elections, created and started on
     * first use without waiting for the connection. Exposed for tests (e.g. to expire a session).
     */
    public CuratorFramework contenderClient(String contenderId) {
        return contenderClients.computeIfAbsent(contenderId, id -> {
            CuratorFramework c = newClient();
            c.start();
            return c;
        });
    }

    Duration suspendedTolerance() {
        return suspendedTolerance;
    }

    /**
     * The notification thread: Curator's latch and connection-state listeners and every
     * grant, revocation and leader-listener call run here. It never calls ZooKeeper (a blocking
     * call retries in the foreground and would hold back revocations); see {@link #serialExecutor}.
     */
    ScheduledThreadPoolExecutor notifier() {
        return notifier;
    }

    /**
     * A new executor for one component's blocking ZooKeeper calls: its tasks run one at a time, in
     * order, on the services' ZooKeeper pool ({@code sluice-zk-<cluster-id>-N}), so a call stuck in
     * retries holds back only that component.
     */
    SerialExecutor serialExecutor(String name) {
        return new SerialExecutor(zooKeeperPool, name);
    }

    /** Path of a job's leader latch. */
    public String leaderPath(JobId jobId) {
        return ZKPaths.makePath(ZKPaths.makePath(basePath, "leaders"), "job-" + jobId.value());
    }

    @Override
    public synchronized LeaderElection jobLeaderElection(JobId jobId, String contenderId) {
        if (closed) {
            throw new IllegalStateException("The ZooKeeper HA services on " + quorum + basePath + " are closed;"
                    + " cannot join the election of job " + jobId);
        }
        ZooKeeperLeaderElection election = new ZooKeeperLeaderElection(this, contenderClient(contenderId),
                leaderPath(jobId), "job " + jobId, contenderId);
        elections.add(election);
        return election;
    }

    /** Path of the dispatcher's leader latch: {@code <base>/leaders/dispatcher}. */
    public String dispatcherLeaderPath() {
        return ZKPaths.makePath(ZKPaths.makePath(basePath, "leaders"), "dispatcher");
    }

    /**
     * A {@code LeaderLatch} on {@link #dispatcherLeaderPath()} on {@code contenderId}'s own session,
     * with the same grants, fencing and connection-state handling as a job's election. The latch
     * node's data is {@code contenderId}, which {@link #dispatcherLeaderRetrieval()} reports.
     * Non-blocking.
     */
    @Override
    public synchronized LeaderElection dispatcherLeaderElection(String contenderId) {
        if (closed) {
            throw new IllegalStateException("The ZooKeeper HA services on " + quorum + basePath + " are closed;"
                    + " cannot join the dispatcher election");
        }
        ZooKeeperLeaderElection election = new ZooKeeperLeaderElection(this, contenderClient(contenderId),
                dispatcherLeaderPath(), "the dispatcher", contenderId);
        elections.add(election);
        return election;
    }

    /**
     * Watches {@link #dispatcherLeaderPath()} with the services' session: the leader is the latch
     * node with the lowest sequence number, and its data is the leader's contender id. Started on
     * first call; ZooKeeper reads run on the services' election thread, {@code currentLeader()}
     * answers from memory and listeners are called on that thread. Non-blocking.
     */
    @Override
    public synchronized ZooKeeperLeaderRetrieval dispatcherLeaderRetrieval() {
        if (dispatcherRetrieval == null) {
            dispatcherRetrieval = new ZooKeeperLeaderRetrieval(this, dispatcherLeaderPath());
            if (!closed) {
                dispatcherRetrieval.start();
            }
        }
        return dispatcherRetrieval;
    }

    @Override
    public JobGraphStore jobGraphStore() {
        return jobGraphStore;
    }

    @Override
    public JobResultStore jobResultStore() {
        return jobResultStore;
    }

    /**
     * Jars in {@code high-availability.storage-dir}, their digests in ZooKeeper
     * ({@link ZooKeeperJobJarStore}); without that option a store that rejects jars saying which option to set.
     */
    @Override
    public JobJarStore jobJarStore() {
        return jobJarStore;
    }

    /** The dispatcher leader's shared settings in {@code <base>/leader-settings} ({@link ZooKeeperLeaderSettingsStore}). */
    @Override
    public io.sluice.ha.LeaderSettingsStore leaderSettingsStore() {
        return leaderSettingsStore;
    }

    /** Savepoint entries in {@code <base>/savepoints} ({@link ZooKeeperSavepointStore}). */
    @Override
    public io.sluice.ha.SavepointStore savepointStore() {
        return savepointStore;
    }

    @Override
    public ZooKeeperCheckpointRecoveryFactory checkpointRecoveryFactory() {
        return recoveryFactory;
    }

    /** Called by an election once it is closed: the services no longer keep it (nor its contender). Any thread. */
    synchronized void forget(ZooKeeperLeaderElection election) {
        elections.remove(election);
    }

    /** Leaves every election joined through this instance and closes the clients; keeps all data. */
    @Override
    public void close() {
        List<ZooKeeperLeaderElection> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = List.copyOf(elections);
            elections.clear();
        }
        toClose.forEach(ZooKeeperLeaderElection::close);
        ZooKeeperLeaderRetrieval retrieval;
        synchronized (this) {
            retrieval = dispatcherRetrieval;
        }
        if (retrieval != null) {
            retrieval.close();
        }
        notifier.shutdown();
        try {
            if (!notifier.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("The ZooKeeper election thread did not finish within 30 s; closing the clients anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        zooKeeperPool.shutdown();
        try {
            if (!zooKeeperPool.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("ZooKeeper calls of the HA services did not finish within 30 s; closing the clients anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        contenderClients.values().forEach(CuratorFramework::close);
        contenderClients.clear();
        client.close();
    }

    // ---------------------------------------------------------------- fenced writes

    /** The latch node a fenced write checks, and who wrote (for messages). */
    record Fence(String latchNode, String description) {}

    /** Runs {@code write} with {@code fence} active on this thread: every {@link #commit} in it checks the node. */
    static void runFenced(Fence fence, io.sluice.ha.LeaderElection.FencedWrite write) throws Exception {
        Fence previous = FENCE.get();
        FENCE.set(fence);
        try {
            write.run();
        } finally {
            if (previous == null) {
                FENCE.remove();
            } else {
                FENCE.set(previous);
            }
        }
    }

    /** The fence active on this thread, or null. */
    static Fence currentFence() {
        return FENCE.get();
    }

    /**
     * Commits {@code ops} as one ZooKeeper transaction, preceded by a check of the active fence's
     * latch node if a fence is active. Blocking.
     *
     * @throws LeadershipLostException if the fence's node is gone (nothing was written)
     * @throws KeeperException         the first failing operation's error otherwise (nothing was written)
     */
    void commit(String what, List<CuratorOp> ops) throws Exception {
        ZooKeeperGuard.check(what, ops.isEmpty() ? basePath : ops.get(0).get().getPath());
        Fence fence = FENCE.get();
        List<CuratorOp> all = new ArrayList<>(ops.size() + 1);
        if (fence != null) {
            all.add(client.transactionOp().check().forPath(fence.latchNode()));
        }
        all.addAll(ops);
        try {
            client.transaction().forOperations(all);
        } catch (KeeperException e) {
            if (fence != null && fenceFailed(e)) {
                throw new LeadershipLostException(fence.description() + " no longer leads (its leader node "
                        + fence.latchNode() + " is gone: session expired or it left the election); the write '" + what
                        + "' was rejected by ZooKeeper");
            }
            throw e;
        }
    }

    private static boolean fenceFailed(KeeperException e) {
        List<OpResult> results = e.getResults();
        if (results == null || results.isEmpty()) {
            return e.code() == KeeperException.Code.NONODE;
        }
        return results.get(0) instanceof OpResult.ErrorResult err && err.getErr() != 0;
    }

    /** Makes sure {@code path} and its parents exist (persistent, empty); blocking, unfenced. */
    void ensurePath(String path) throws Exception {
        ZooKeeperGuard.check("create parents", path);
        try {
            client.create().creatingParentsIfNeeded().forPath(path);
        } catch (KeeperException.NodeExistsException e) {
            // fine
        }
    }

    static String describe(Duration d) {
        return Durations.format(d);
    }
}
