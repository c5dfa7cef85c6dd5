package io.sluice.cluster.process;

import io.sluice.config.Durations;
import io.sluice.ha.LeaderRetrieval;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs at once (INFO, on the retrieval's first notification) that a task manager waits for a job
 * manager to lead its cluster if none does when it starts, and then, every {@code period}
 * ({@code taskmanager.no-leader-warning-interval}) while it
 * lasts, warns that no job manager leads the cluster the task manager was configured for, with what to check (the usual cause is a {@code high-availability.cluster-id}
 * or ZooKeeper root that differs from the job managers'), so a misconfigured task manager says why
 * it does not register instead of waiting silently. The task manager keeps waiting: a leader that
 * appears later is followed at once.
 *
 * <p>Threading: the retrieval's listener thread and {@code timer}; never blocks.
 */
final class NoLeaderReporter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NoLeaderReporter.class);

    private final LeaderRetrieval retrieval;
    private final String subject;
    private final String where;
    private final Duration period;
    private final Consumer<Optional<String>> listener = this::leaderChanged;
    private final ScheduledFuture<?> check;
    private final long startNanos = System.nanoTime();
    private volatile long leaderlessSinceNanos = System.nanoTime();
    private volatile boolean hasLeader;
    private boolean notified; // only on the retrieval's listener thread (one call at a time)

    /**
     * @param subject who waits, e.g. {@code "Task manager taskmanager-1"}
     * @param where   which cluster and HA services it looks in, e.g. {@code "cluster 'prod' (high-availability.cluster-id) in ZooKeeper zk:2181 under /sluice"}
     */
    NoLeaderReporter(LeaderRetrieval retrieval, String subject, String where, Duration period,
                     ScheduledExecutorService timer) {
        this.retrieval = retrieval;
        this.subject = subject;
        this.where = where;
        this.period = period;
        retrieval.addListener(listener);
        this.check = timer.scheduleAtFixedRate(this::report, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void leaderChanged(Optional<String> leader) {
        boolean first = !notified;
        notified = true;
        if (first && leader.isEmpty()) {
            LOG.info("{}: waiting for a job manager to lead {}; warning every {} while none does",
                    subject, where, Durations.describe(period));
            return;
        }
        if (leader.isPresent()) {
            if (!hasLeader) {
                LOG.info("{}: the job manager leader of {} is {}", subject, where, leader.get());
            }
            hasLeader = true;
        } else {
            if (hasLeader) {
                LOG.info("{}: no job manager leads {} now; waiting for a new leader", subject, where);
                leaderlessSinceNanos = System.nanoTime();
            }
            hasLeader = false;
        }
    }

    private void report() {
        if (hasLeader || retrieval.currentLeader().isPresent()) {
            return;
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - Math.max(startNanos, leaderlessSinceNanos));
        LOG.warn("{}: no job manager leads {} after {} s; still waiting and retrying (checked every {}). If job"
                + " managers run, check that this task manager's high-availability.cluster-id,"
                + " high-availability.zookeeper.quorum and high-availability.zookeeper.root match theirs.",
                subject, where, seconds, Durations.describe(period));
    }

    @Override
    public void close() {
        check.cancel(false);
        retrieval.removeListener(listener);
    }
}
