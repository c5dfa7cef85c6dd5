package io.sluice.cluster;

import io.sluice.config.Durations;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.protocol.DispatcherGateway;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Finds the dispatcher leader of a {@link LocalCluster} for its clients: the job manager that the HA
 * services' dispatcher leader retrieval names, once its Dispatcher acts as leader, waiting (woken by
 * {@link #leadershipChanged}) for one if none leads yet.
 *
 * <p>Threading: any thread; {@link #await} blocks its caller (never a main thread of the cluster).
 */
final class DispatcherLeaderWait {
    /** Notified when a Dispatcher's leadership changes; {@link #await} waits on it. */
    private final Object leadership = new Object();

    /**
     * The gateway of the current dispatcher leader among {@code jobManagers}; waits up to {@code wait}
     * if none leads yet, then fails naming the leader retrieval's answer and the running job managers.
     */
    DispatcherGateway await(HighAvailabilityServices ha, Supplier<List<LocalCluster.JobManager>> jobManagers,
                            Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (leadership) {
            while (true) {
                Optional<String> leader = ha.dispatcherLeaderRetrieval().currentLeader();
                List<LocalCluster.JobManager> running = jobManagers.get();
                for (LocalCluster.JobManager jm : running) {
                    if (leader.isPresent() && jm.id().equals(leader.get()) && jm.dispatcher().isLeader()) {
                        return jm.dispatcher();
                    }
                }
                long remainingNanos = deadline - System.nanoTime();
                if (remainingNanos <= 0) {
                    throw new IllegalStateException("No job manager of this cluster leads the dispatcher after "
                            + Durations.describe(wait) + " (leader retrieval reports " + leader.orElse("no leader")
                            + "; running job managers: " + running.stream().map(LocalCluster.JobManager::id).toList()
                            + ")");
                }
                try {
                    // Woken by a Dispatcher's leadership change or a leader-retrieval update; the bounded
                    // wait also covers a retrieval update that arrives without a Dispatcher change.
                    TimeUnit.NANOSECONDS.timedWait(leadership, Math.min(remainingNanos, 50_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while waiting for a dispatcher leader", e);
                }
            }
        }
    }

    /** Wakes the callers of {@link #await} waiting for a leader. Any thread. */
    void leadershipChanged() {
        synchronized (leadership) {
            leadership.notifyAll();
        }
    }
}
