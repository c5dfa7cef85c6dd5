package io.sluice.ha;

import io.sluice.graph.JobId;

/**
 * The services through which job managers agree on leadership and keep what must survive them.
 *
 * <p>This is a public extension point: Sluice ships {@code embedded} (in-JVM election, stores in a
 * local directory) and plans {@code zookeeper}; a user may plug in another (for example one on
 * Kubernetes leases and config maps) through {@link HighAvailabilityServicesFactory} and the
 * {@code high-availability.type} setting. Contracts of each part:
 * <ul>
 *   <li>{@link LeaderElection}: start/close non-blocking; grants and revocations on the election's
 *       own thread; {@code runIfLeader} fences writes.</li>
 *   <li>{@link LeaderRetrieval}: {@code currentLeader} from memory, any thread; listeners called
 *       on the implementation's own thread.</li>
 *   <li>{@link JobGraphStore}: blocking, I/O executor only; a put adds a new job and rejects a
 *       duplicate job id; removes idempotent. {@link JobResultStore}: blocking, I/O executor only;
 *       puts and removes idempotent.</li>
 *   <li>{@link CheckpointRecoveryFactory}: blocking, I/O executor only, once per leadership
 *       session; interruptible.</li>
 *   <li>{@link SavepointStore}: blocking, I/O executor only; adds idempotent; an unreadable entry
 *       is reported, never fails a read.</li>
 * </ul>
 * Implementations must be thread-safe. In tests, Sluice's main-thread guard fails any blocking
 * call made from a component main thread.
 */
public interface HighAvailabilityServices extends AutoCloseable {

    /** This contender's place in the election for {@code jobId}'s leadership. */
    LeaderElection jobLeaderElection(JobId jobId, String contenderId);

    /**
     * This contender's place in the election of the cluster's Dispatcher leader (one per cluster:
     * the leading Dispatcher recovers the stored jobs and accepts submissions; the others are
     * standbys). {@code contenderId} is the job manager's id and is what
     * {@link #dispatcherLeaderRetrieval()} reports while this contender leads. Non-blocking (no I/O on
     * the caller's thread); the same contract as {@link #jobLeaderElection}: grants and revocations
     * on the implementation's own thread, a fresh session id per grant, {@code runIfLeader} fences.
     */
    LeaderElection dispatcherLeaderElection(String contenderId);

    /**
     * Who leads the Dispatcher election, for clients looking for the job manager to submit to.
     * Non-blocking; the returned object is owned by these services (do not close it) and may be
     * shared between callers. See {@link LeaderRetrieval} for its threading contract.
     */
    LeaderRetrieval dispatcherLeaderRetrieval();

    JobGraphStore jobGraphStore();

    JobResultStore jobResultStore();

    CheckpointRecoveryFactory checkpointRecoveryFactory();

    /**
     * Where the jars of jobs submitted from jars are kept beside their job graphs (blocking, I/O
     * executor only, like the other stores). The default cannot store jars: such services run jobs
     * built in Java, and reject jobs from jars saying why.
     */
    default io.sluice.jar.JobJarStore jobJarStore() {
        return io.sluice.jar.JobJarStore.unsupported(getClass().getSimpleName());
    }

    /**
     * Where the savepoints taken of each job are listed, so that a new leader lists them too (blocking, I/O
     * executor only, like the other stores; see {@link SavepointStore}). The default keeps nothing: a job
     * manager then lists only the savepoints taken through it.
     */
    default SavepointStore savepointStore() {
        return SavepointStore.NONE;
    }

    /**
     * Where the leading job manager publishes the settings its cluster's job managers should share,
     * for job managers on other hosts to compare with theirs. The default keeps nothing: services that
     * coordinate job managers in one process only have no other job manager to compare with.
     */
    default LeaderSettingsStore leaderSettingsStore() {
        return LeaderSettingsStore.NONE;
    }

    /** Releases resources; keeps all data (other job managers may still use it). */
    @Override
    void close();
}
