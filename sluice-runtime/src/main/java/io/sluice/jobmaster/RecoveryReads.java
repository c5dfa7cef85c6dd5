package io.sluice.jobmaster;

import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the storage reads of job recovery across all jobs of one job manager, and orders them
 * fairly: at most {@code maxConcurrent} recovery steps (a job graph read, one recovery attempt of a
 * job's checkpoints) run on the I/O executor at once; each step reads storage one call at a time,
 * so at most {@code maxConcurrent} recovery reads are in flight
 * ({@code jobmanager.recovery.max-concurrent-reads}). The others wait in a queue ordered by their
 * job's ticket ({@link #nextTicket()}, taken when the job became known to this job manager) and
 * then by arrival: a job whose graph was read comes before jobs whose graph was not, so jobs reach
 * RUNNING one after another instead of all at the end, and a job is never overtaken by jobs that
 * arrived after it (FIFO per job).
 *
 * <p>Why a bound: after a job-manager restart every job recovers at once, and an object store
 * throttles (or a file system stalls) when hundreds of reads arrive together; the bound keeps the
 * load flat and the time until all jobs run is the same (the reads are the work).
 *
 * <p>Threading: thread-safe; every method takes this object's lock briefly and nothing blocks under
 * it. The steps run on the I/O executor given.
 */
public final class RecoveryReads {
    private static final Logger LOG = LoggerFactory.getLogger(RecoveryReads.class);

    /**
     * The default of {@code jobmanager.recovery.max-concurrent-reads} (32): enough to keep a file system
     * or an object store busy (S3 answers small reads in tens of milliseconds), few enough not to be
     * throttled (S3's limits are per prefix and in the thousands per second).
     */
    public static final int DEFAULT_MAX_CONCURRENT =
            io.sluice.config.JobManagerOptions.RECOVERY_MAX_CONCURRENT_READS.defaultValue();

    private final int maxConcurrent;
    private final ExecutorService ioExecutor;
    private final AtomicLong tickets = new AtomicLong();
    private final AtomicLong arrivals = new AtomicLong();
    private final Object lock = new Object();
    /** Guarded by lock. */
    private final TreeSet<Step> waiting = new TreeSet<>();
    /** Guarded by lock. */
    private int running;

    /**
     * @param maxConcurrent at most this many recovery steps run at once (at least 1)
     * @param ioExecutor    where they run (an {@link ExecutorService}, so a step can be interrupted)
     */
    public RecoveryReads(int maxConcurrent, ExecutorService ioExecutor) {
        if (maxConcurrent < 1) {
            throw new IllegalArgumentException("jobmanager.recovery.max-concurrent-reads must be at least 1, got "
                    + maxConcurrent);
        }
        this.maxConcurrent = maxConcurrent;
        this.ioExecutor = ioExecutor;
    }

    public int maxConcurrent() {
        return maxConcurrent;
    }

    /** A new job's place in the recovery order: lower tickets go first. */
    public long nextTicket() {
        return tickets.incrementAndGet();
    }

    /**
     * Runs {@code io} on the I/O executor once fewer than {@code maxConcurrent} steps run and no
     * step with a lower ticket (or the same ticket, queued earlier) waits. {@code what} names the
     * step in logs. The returned reservation cancels the step (interrupting it if it runs).
     */
    public Reservation reserve(long ticket, String what, Runnable io) {
        Step step = new Step(ticket, arrivals.incrementAndGet(), what, io);
        synchronized (lock) {
            waiting.add(step);
        }
        startWhatMay();
        return step;
    }

    /** Steps running now. */
    public int running() {
        synchronized (lock) {
            return running;
        }
    }

    /** Steps waiting for their turn. */
    public int queued() {
        synchronized (lock) {
            return waiting.size();
        }
    }

    private void startWhatMay() {
        while (true) {
            Step next;
            synchronized (lock) {
                if (running >= maxConcurrent || waiting.isEmpty()) {
                    return;
                }
                next = waiting.pollFirst();
                running++;
                next.state.set(Step.SUBMITTED);
            }
            next.submit();
        }
    }

    private void finished() {
        synchronized (lock) {
            running--;
        }
        startWhatMay();
    }

    /** A queued or running recovery step. */
    public interface Reservation {
        /** Removes the step from the queue, or interrupts it if it runs. Idempotent; any thread. */
        void cancel();

        /** How many steps wait before this one; -1 once it has started (or was cancelled). */
        int ahead();
    }

    private final class Step implements Reservation, Comparable<Step> {
        static final int WAITING = 0;
        static final int SUBMITTED = 1;
        static final int RUNNING = 2;
        static final int DONE = 3;

        final long ticket;
        final long arrival;
        final String what;
        final Runnable io;
        final AtomicInteger state = new AtomicInteger(WAITING);
        private volatile Future<?> future;

        Step(long ticket, long arrival, String what, Runnable io) {
            this.ticket = ticket;
            this.arrival = arrival;
            this.what = what;
            this.io = io;
        }

        void submit() {
            try {
                future = ioExecutor.submit(this::run);
            } catch (RuntimeException e) {
                LOG.error("Could not start the recovery step '{}' on the I/O executor", what, e);
                if (state.compareAndSet(SUBMITTED, DONE)) {
                    finished();
                }
            }
        }

        private void run() {
            if (!state.compareAndSet(SUBMITTED, RUNNING)) {
                return; // cancelled before it started; cancel() gave the slot back
            }
            try {
                io.run();
            } finally {
                state.set(DONE);
                finished();
            }
        }

        @Override
        public void cancel() {
            synchronized (lock) {
                if (state.get() == WAITING && waiting.remove(this)) {
                    state.set(DONE);
                    return;
                }
            }
            if (state.compareAndSet(SUBMITTED, DONE)) {
                Future<?> f = future;
                if (f != null) {
                    f.cancel(false);
                }
                finished();
                return;
            }
            Future<?> f = future;
            if (f != null && state.get() == RUNNING) {
                f.cancel(true); // the running step ends, and gives its slot back, when its read returns
            }
        }

        @Override
        public int ahead() {
            synchronized (lock) {
                return state.get() == WAITING ? waiting.headSet(this).size() : -1;
            }
        }

        @Override
        public int compareTo(Step other) {
            int byTicket = Long.compare(ticket, other.ticket);
            return byTicket != 0 ? byTicket : Long.compare(arrival, other.arrival);
        }
    }
}
