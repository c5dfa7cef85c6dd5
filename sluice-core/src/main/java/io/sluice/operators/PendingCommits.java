package io.sluice.operators;

import io.sluice.api.errors.UnrecoverableJobException;
import io.sluice.api.sink.Committer;
import io.sluice.concurrent.BackoffPolicy;
import io.sluice.config.Durations;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The committables of one two-phase-commit sink subtask that are not yet committed, and the commit
 * loop that works them off on a commit thread, in checkpoint order, retrying a failed commit with
 * backoff ({@link #COMMIT_RETRY}: 100 ms doubling to 10 s) until it succeeds.
 *
 * <p>Threading: {@link #add}, {@link #addFinal}, {@link #assignFinalTo}, {@link #restore}, {@link #snapshot},
 * {@link #commitUpTo} and {@link #commitAllAndWait} are called from the task thread; commits run on the
 * injected single-thread executor; {@link #stats} and {@link #fatalError} from any thread. Shared fields are guarded by
 * {@code this}. A committable stays pending (and so in every snapshot) until its commit returned.
 */
public final class PendingCommits<C> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PendingCommits.class);
    /** The waits between attempts to commit one committable: 100 ms doubling to 10 s, for as long as the job runs. */
    static final BackoffPolicy COMMIT_RETRY = BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(10));

    /** The commit thread: runs the commit loop now or after a delay; one thread, so commits never overlap. */
    public interface CommitThread {
        void execute(Runnable task);

        void schedule(Runnable task, long delayMillis);

        void shutdownNow();

        /** A commit thread on a single-thread scheduled executor. */
        static CommitThread of(ScheduledExecutorService executor) {
            return new CommitThread() {
                @Override
                public void execute(Runnable task) {
                    executor.execute(task);
                }

                @Override
                public void schedule(Runnable task, long delayMillis) {
                    executor.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
                }

                @Override
                public void shutdownNow() {
                    executor.shutdownNow();
                }
            };
        }
    }

    /** The checkpoint id of {@link #addFinal}'s committables until {@link #assignFinalTo} names their checkpoint. */
    static final long FINAL = Long.MAX_VALUE;

    /** A committable of checkpoint {@code checkpointId}, pre-committed at {@code sinceMillis} (monotonic). */
    public record Entry<C>(long checkpointId, C committable, long sinceMillis) {}

    private final String owner;
    private final Committer<C> committer;
    private final CommitThread executor;
    private final Clock clock;

    private final List<Entry<C>> pending = new ArrayList<>();
    private long commitUpTo = Long.MIN_VALUE;
    private boolean loopScheduled;
    private int failedAttempts;
    private long retries;
    private long committed;
    private String lastError;
    private Throwable fatal;
    private boolean closed;

    /**
     * @param owner     names the sink subtask in logs and errors
     * @param executor  the commit thread (one thread: commits never overlap)
     */
    public PendingCommits(String owner, Committer<C> committer, CommitThread executor, Clock clock) {
        this.owner = owner;
        this.committer = Objects.requireNonNull(committer, "committer");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The committables a pre-commit at {@code checkpointId} returned. Task thread. */
    public synchronized void add(long checkpointId, List<C> committables) {
        long now = clock.relativeTimeMillis();
        for (C c : committables) {
            pending.add(new Entry<>(checkpointId, c, now));
        }
    }

    /**
     * The committables of the last pre-commit, at the end of the input, before the checkpoint that will
     * cover them is known: pending (and counted in {@link #stats}), but never due and never in a
     * {@link #snapshot} until {@link #assignFinalTo} names that checkpoint. Task thread.
     */
    public void addFinal(List<C> committables) {
        add(FINAL, committables);
    }

    /**
     * Checkpoint {@code checkpointId} covers the committables of {@link #addFinal}: they become part of it
     * (its snapshot holds them) and are committed once it completes. {@code checkpointId} is newer than every
     * other pending committable's, so the checkpoint order stays. Task thread.
     */
    public synchronized void assignFinalTo(long checkpointId) {
        for (int i = 0; i < pending.size(); i++) {
            Entry<C> e = pending.get(i);
            if (e.checkpointId() == FINAL) {
                pending.set(i, new Entry<>(checkpointId, e.committable(), e.sinceMillis()));
            }
        }
    }

    /** Whether anything is pending (not yet committed, including {@link #addFinal}). Any thread. */
    public synchronized boolean hasPending() {
        return !pending.isEmpty();
    }

    /** The committables of the restored checkpoint: all become due at once. Task thread, before any {@link #add}. */
    public void restore(long restoredCheckpointId, List<Entry<C>> entries) {
        synchronized (this) {
            long now = clock.relativeTimeMillis();
            for (Entry<C> e : entries) {
                pending.add(new Entry<>(e.checkpointId(), e.committable(), now));
            }
            pending.sort(java.util.Comparator.comparingLong(Entry::checkpointId));
        }
        commitUpTo(restoredCheckpointId);
    }

    /**
     * Everything still pending, for a checkpoint (includes committables being committed right now); not
     * {@link #addFinal}'s committables before {@link #assignFinalTo}.
     */
    public synchronized List<Entry<C>> snapshot() {
        return pending.stream().filter(e -> e.checkpointId() != FINAL).toList();
    }

    /** Checkpoint {@code checkpointId} completed: commit every committable up to it. Task thread. */
    public void commitUpTo(long checkpointId) {
        synchronized (this) {
            if (checkpointId <= commitUpTo || closed) {
                return;
            }
            commitUpTo = checkpointId;
            if (loopScheduled) {
                return; // the running loop (or its scheduled retry) picks the new ones up
            }
            loopScheduled = true;
        }
        executor.execute(this::commitLoop);
    }

    /**
     * Commits everything pending and waits until it is committed (the task must not finish before): at the
     * end of the input without checkpoints, or once the task's final checkpoint completed (then everything
     * pending is due anyway). Task thread; interrupted by a cancel.
     */
    public void commitAllAndWait() throws Exception {
        commitUpTo(Long.MAX_VALUE);
        synchronized (this) {
            while (!pending.isEmpty() && fatal == null && !closed) {
                wait(100);
            }
            if (fatal != null) {
                throw new IllegalStateException(owner + ": a commit failed and cannot be retried: " + fatal, fatal);
            }
        }
    }

    /** A commit error that no retry can fix, or {@code null}. Any thread. */
    public synchronized Throwable fatalError() {
        return fatal;
    }

    public synchronized CommitStats stats() {
        long now = clock.relativeTimeMillis();
        long age = 0;
        for (Entry<C> e : pending) {
            age = Math.max(age, now - e.sinceMillis());
        }
        return new CommitStats(pending.size(), age, retries, committed, lastError);
    }

    /** Stops committing (what is pending stays in the checkpoints); does not wait for a commit in progress. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        executor.shutdownNow();
    }

    /** Commit thread: commits due committables one by one until none is due or one fails. */
    private void commitLoop() {
        while (true) {
            Entry<C> next;
            synchronized (this) {
                if (closed || fatal != null || pending.isEmpty() || pending.get(0).checkpointId() > commitUpTo) {
                    loopScheduled = false;
                    notifyAll();
                    return;
                }
                next = pending.get(0);
            }
            try {
                committer.commit(next.committable());
            } catch (Throwable t) {
                Duration delay;
                synchronized (this) {
                    if (closed) {
                        loopScheduled = false;
                        return;
                    }
                    if (UnrecoverableJobException.isCauseOf(t)) {
                        fatal = t;
                        loopScheduled = false;
                        notifyAll();
                        LOG.error("{}: the commit of checkpoint {}'s output failed and cannot be retried",
                                owner, next.checkpointId(), t);
                        return;
                    }
                    failedAttempts++;
                    retries++;
                    delay = COMMIT_RETRY.delayAfter(failedAttempts);
                    lastError = "commit of checkpoint " + next.checkpointId() + " failed (attempt " + failedAttempts
                            + "): " + t + "; next retry in " + Durations.describe(delay);
                }
                if (failedAttempts == 1 || failedAttempts % 10 == 0) {
                    LOG.warn("{}: {}", owner, lastError, t);
                } else {
                    LOG.debug("{}: {}", owner, lastError, t);
                }
                try {
                    executor.schedule(this::commitLoop, delay.toMillis());
                } catch (java.util.concurrent.RejectedExecutionException closedMeanwhile) {
                    synchronized (this) {
                        loopScheduled = false;
                    }
                }
                return;
            }
            synchronized (this) {
                if (!pending.isEmpty() && pending.get(0) == next) {
                    pending.remove(0);
                }
                committed++;
                failedAttempts = 0;
                lastError = null;
                notifyAll();
            }
        }
    }
}
