package io.sluice.dispatcher;

import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeaderRetrieval;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.rpc.MainThreadExecutor;
import java.util.Optional;
import java.util.UUID;

/**
 * What the Dispatcher's parts share: the services, the Dispatcher's main thread, the job table, and
 * the dispatcher leadership as this Dispatcher acts on it.
 *
 * <p>Threading: everything is written on the main thread. {@link #leaderSession}, {@link #leading},
 * {@link #election}, {@link #listingJobs} and {@link #closed} are also read from other threads
 * (fencing tokens, {@code isLeader()}, the job list and status calls), and so is the published side
 * of {@link #jobs} ({@link JobTable#published}).
 */
final class DispatcherCore {
    final JobManagerServices services;
    final MainThreadExecutor mainThread;
    final JobTable jobs = new JobTable();
    final long startMillis;
    final LeaderRetrieval leaderRetrieval;
    /** The dispatcher election, once joined. */
    volatile LeaderElection election;
    /** The dispatcher leadership session acted on, or null while a standby. */
    volatile UUID leaderSession;
    volatile boolean leading;
    /** Written on the main thread: whether the stored jobs are being listed (any id may be among them). */
    volatile boolean listingJobs;
    /** Written on the main thread: closed for good. */
    volatile boolean closed;

    DispatcherCore(JobManagerServices services, MainThreadExecutor mainThread) {
        this.services = services;
        this.mainThread = mainThread;
        this.startMillis = services.clock().currentTimeMillis();
        this.leaderRetrieval = services.ha().dispatcherLeaderRetrieval();
    }

    /** The job manager id, this Dispatcher's contender id in the dispatcher election. */
    String id() {
        return services.contenderId();
    }

    /** Whether this Dispatcher still acts on leader session {@code session}. Main thread. */
    boolean leads(UUID session) {
        return !closed && session.equals(leaderSession);
    }

    /** Fails unless called on the Dispatcher's main thread (always checked, not only with assertions). */
    void assertMainThread() {
        mainThread.assertRunningInMainThread();
    }

    /** The message a standby gives a client that should talk to the leader. */
    String standbyMessage(String action) {
        Optional<String> leader = leaderRetrieval.currentLeader();
        if (leader.isPresent() && !leader.get().equals(id())) {
            return "This job manager (" + id() + ") is a standby; " + action + " the leader " + leader.get();
        }
        if (leader.isPresent()) {
            return "This job manager (" + id() + ") is becoming the dispatcher leader; retry in a moment";
        }
        return "This job manager (" + id() + ") is a standby and no dispatcher leader is known yet; retry in a moment";
    }
}
