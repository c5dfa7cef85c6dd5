package io.sluice.ha.embedded;

import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointRecoveryFactory;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.JobGraphStore;
import io.sluice.ha.JobResultStore;
import io.sluice.ha.LeaderContender;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeaderRetrieval;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * {@link HighAvailabilityServices} within one JVM: leader election through the
 * {@link EmbeddedLeaderElectionService} shared by all users of the same HA directory, and the
 * stores as files under it:
 * <pre>
 *   &lt;haDir&gt;/jobgraphs/&lt;jobId&gt;
 *   &lt;haDir&gt;/jobresults/&lt;jobId&gt;
 *   &lt;haDir&gt;/checkpoints/&lt;jobId&gt;/&lt;checkpointId, 19 digits&gt;
 *   &lt;haDir&gt;/checkpoint-counters/&lt;jobId&gt;
 *   &lt;haDir&gt;/jobjars/&lt;jobId&gt;.jar      (jobs submitted from a jar)
 *   &lt;haDir&gt;/savepoints/&lt;jobId&gt;/&lt;checkpointId, 19 digits&gt;   (entry of a savepoint: {@link FileSavepointStore})
 * </pre>
 * It survives job-manager failover within the JVM, and with a durable directory also JVM
 * restarts; it does not coordinate job managers in different JVMs.
 *
 * <p>Threading: thread-safe. The constructor blocks briefly (creates and resolves the directory).
 * {@link #jobLeaderElection}, {@link #dispatcherLeaderElection}, {@link #dispatcherLeaderRetrieval}
 * and {@link #close} do not block; the stores block and follow the contracts of
 * {@link HighAvailabilityServices}. The dispatcher election is the election named
 * {@value #DISPATCHER_LEADERSHIP} of the shared election service (so every job manager in the JVM
 * on the same directory competes in it); retrieval reads its leader from memory and notifies
 * listeners on the election service's notification thread.
 */
public final class EmbeddedHaServices implements HighAvailabilityServices {
    private final Path haDirectory;
    private final EmbeddedLeaderElectionService elections;
    private final FileJobGraphStore jobGraphStore;
    private final FileJobResultStore jobResultStore;
    private final EmbeddedCheckpointRecoveryFactory checkpointRecoveryFactory;
    private final io.sluice.jar.FileJobJarStore jobJarStore;
    private final FileSavepointStore savepointStore;
    /** The election places made here and not closed yet (closed ones are forgotten: see {@link Joined}). */
    private final List<LeaderElection> created = new ArrayList<>();
    private final List<Consumer<Optional<String>>> retrievalListeners = new CopyOnWriteArrayList<>();
    private final LeaderRetrieval dispatcherRetrieval = new LeaderRetrieval() {
        @Override
        public Optional<String> currentLeader() {
            return elections.currentLeader(DISPATCHER_LEADERSHIP);
        }

        @Override
        public void addListener(Consumer<Optional<String>> listener) {
            retrievalListeners.add(listener);
            elections.addLeaderListener(DISPATCHER_LEADERSHIP, listener);
        }

        @Override
        public void removeListener(Consumer<Optional<String>> listener) {
            retrievalListeners.remove(listener);
            elections.removeLeaderListener(DISPATCHER_LEADERSHIP, listener);
        }
    };
    private boolean closed;

    public EmbeddedHaServices(Path haDirectory) {
        this.elections = EmbeddedLeaderElectionService.acquire(haDirectory);
        this.haDirectory = elections.directory();
        this.jobGraphStore = new FileJobGraphStore(this.haDirectory.resolve("jobgraphs"));
        this.jobResultStore = new FileJobResultStore(this.haDirectory.resolve("jobresults"));
        this.checkpointRecoveryFactory = new EmbeddedCheckpointRecoveryFactory(
                new FileCheckpointPointerStore(this.haDirectory.resolve("checkpoints")),
                this.haDirectory.resolve("checkpoint-counters"));
        this.jobJarStore = new io.sluice.jar.FileJobJarStore(this.haDirectory.resolve("jobjars"));
        this.savepointStore = new FileSavepointStore(this.haDirectory.resolve("savepoints"));
    }

    /** The canonical HA directory. */
    public Path haDirectory() {
        return haDirectory;
    }

    /** The election service shared with all users of this directory, e.g. for {@code revokeLeader} in tests. */
    public EmbeddedLeaderElectionService leaderElectionService() {
        return elections;
    }

    /** Election name of the Dispatcher leadership. */
    public static final String DISPATCHER_LEADERSHIP = "dispatcher";

    /** Election name of a job's leadership. */
    public static String jobLeadershipName(JobId jobId) {
        return "job-" + jobId;
    }

    @Override
    public synchronized LeaderElection jobLeaderElection(JobId jobId, String contenderId) {
        if (closed) {
            throw new IllegalStateException("The embedded HA services on " + haDirectory + " are closed; cannot"
                    + " join the election of job " + jobId);
        }
        LeaderElection election = new Joined(elections.createLeaderElection(jobLeadershipName(jobId), contenderId));
        created.add(election);
        return election;
    }

    @Override
    public synchronized LeaderElection dispatcherLeaderElection(String contenderId) {
        if (closed) {
            throw new IllegalStateException("The embedded HA services on " + haDirectory + " are closed; cannot"
                    + " join the dispatcher election");
        }
        LeaderElection election = new Joined(elections.createLeaderElection(DISPATCHER_LEADERSHIP, contenderId));
        created.add(election);
        return election;
    }

    @Override
    public LeaderRetrieval dispatcherLeaderRetrieval() {
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

    @Override
    public CheckpointRecoveryFactory checkpointRecoveryFactory() {
        return checkpointRecoveryFactory;
    }

    @Override
    public io.sluice.jar.JobJarStore jobJarStore() {
        return jobJarStore;
    }

    @Override
    public io.sluice.ha.SavepointStore savepointStore() {
        return savepointStore;
    }

    /** Leaves every election joined through this instance and releases the election service; keeps all files. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List.copyOf(created).forEach(LeaderElection::close); // each forgets itself
        created.clear();
        retrievalListeners.forEach(l -> elections.removeLeaderListener(DISPATCHER_LEADERSHIP, l));
        retrievalListeners.clear();
        elections.release();
    }

    private synchronized void forget(LeaderElection election) {
        created.remove(election);
    }

    /**
     * An election place made here, forgotten once closed: its contender (a job's {@code JobManagerRunner},
     * which references the ended job master and its last failure, and so the job's class loader) must not
     * stay reachable from services that live as long as the process. Threading: as the place it wraps.
     */
    private final class Joined implements LeaderElection {
        private final LeaderElection place;

        Joined(LeaderElection place) {
            this.place = place;
        }

        @Override
        public void startLeaderElection(LeaderContender contender) {
            place.startLeaderElection(contender);
        }

        @Override
        public boolean hasLeadership(UUID leaderSessionId) {
            return place.hasLeadership(leaderSessionId);
        }

        @Override
        public void runIfLeader(UUID leaderSessionId, FencedWrite write) throws Exception {
            place.runIfLeader(leaderSessionId, write);
        }

        @Override
        public void close() {
            place.close();
            forget(this);
        }
    }
}
