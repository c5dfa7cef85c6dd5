package io.sluice.compare.sluice;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * What the keyed instances of one counting job tell the harness: the first record each instance
 * (a task's function, new after every restart and on every job manager) processes, and whether
 * that record's key already had a count, i.e. whether the instance started from restored state;
 * and the moment an injected failure was thrown. It also carries the failure switch: the harness
 * arms it, and the next record of the chosen keyed subtask throws.
 *
 * <p>The job's functions are deserialized copies living in task threads, so they find their probe
 * through a static registry by {@link #id()}; {@link #close()} removes it.
 *
 * <p>Threading: task threads call {@link #shouldFail}, {@link #thrown} and {@link #firstRecord};
 * the harness thread arms failures and waits. Thread-safe. Waiting is a monitor wait woken by
 * every event, never a poll.
 */
final class KeyedProbe implements AutoCloseable {
    private static final Map<String, KeyedProbe> REGISTRY = new ConcurrentHashMap<>();
    private static final int NONE = -1;

    /**
     * The first record one keyed instance processed.
     *
     * @param nanos    {@link System#nanoTime()} when it was processed
     * @param attempt  the task's attempt number (restarts of this job on this job manager)
     * @param restored whether the record's key already had a count: the instance runs on restored state
     */
    record FirstRecord(long nanos, int subtask, int attempt, boolean restored) {
    }

    private final String id = UUID.randomUUID().toString();
    private final AtomicInteger failingSubtask = new AtomicInteger(NONE);
    private final List<FirstRecord> firstRecords = new ArrayList<>(); // guarded by this
    private final List<Long> throwNanos = new ArrayList<>(); // guarded by this
    private final java.util.concurrent.atomic.LongAdder processed = new java.util.concurrent.atomic.LongAdder();

    private KeyedProbe() {}

    /** A new probe, registered until {@link #close()}. */
    static KeyedProbe create() {
        KeyedProbe probe = new KeyedProbe();
        REGISTRY.put(probe.id, probe);
        return probe;
    }

    /** The probe of {@code id}, or {@code null} once it was closed (the job then just counts). */
    static KeyedProbe lookup(String id) {
        return REGISTRY.get(id);
    }

    String id() {
        return id;
    }

    /** Makes the next record that keyed subtask {@code subtask} processes throw. Any thread. */
    void failNextRecordOf(int subtask) {
        failingSubtask.set(subtask);
    }

    /** Task threads, per record: whether this record must throw; true once per {@link #failNextRecordOf}. */
    boolean shouldFail(int subtask) {
        return failingSubtask.get() == subtask && failingSubtask.compareAndSet(subtask, NONE);
    }

    /** Task threads: the injected failure is thrown now. */
    synchronized void thrown(long nanos) {
        throwNanos.add(nanos);
        notifyAll();
    }

    /** Task threads: {@code n} more records processed (jobs that count them, in batches). */
    void processed(long n) {
        processed.add(n);
    }

    /** Records the job's keyed instances reported with {@link #processed(long)}. Any thread. */
    long processed() {
        return processed.sum();
    }

    /** Task threads: an instance processed its first record. */
    synchronized void firstRecord(FirstRecord record) {
        firstRecords.add(record);
        notifyAll();
    }

    /** Waits for an injected failure thrown after {@code afterNanos}; returns when it was thrown. */
    synchronized long awaitThrowAfter(long afterNanos, Duration timeout) throws InterruptedException, TimeoutException {
        return await(() -> {
            for (long t : throwNanos) {
                if (t - afterNanos > 0) {
                    return t;
                }
            }
            return null;
        }, timeout, "the injected failure to be thrown (does the failing keyed subtask receive records?)");
    }

    /** Waits for the first record, after {@code afterNanos}, of an instance matching {@code which}. */
    synchronized FirstRecord awaitFirstRecord(long afterNanos, Predicate<FirstRecord> which, Duration timeout,
                                              String what) throws InterruptedException, TimeoutException {
        return await(() -> {
            for (FirstRecord r : firstRecords) {
                if (r.nanos() - afterNanos > 0 && which.test(r)) {
                    return r;
                }
            }
            return null;
        }, timeout, what);
    }

    /** Waits until each of the {@code subtasks} keyed subtasks has an instance that processed records after {@code afterNanos}. */
    synchronized void awaitAllSubtasksAfter(long afterNanos, int subtasks, Duration timeout)
            throws InterruptedException, TimeoutException {
        await(() -> {
            Set<Integer> seen = new HashSet<>();
            for (FirstRecord r : firstRecords) {
                if (r.nanos() - afterNanos > 0) {
                    seen.add(r.subtask());
                }
            }
            return seen.size() >= subtasks ? Boolean.TRUE : null;
        }, timeout, "all " + subtasks + " keyed subtasks to process records again");
    }

    /** Holds the monitor; {@code find} returns null until the awaited event is there. */
    private <T> T await(Supplier<T> find, Duration timeout, String what)
            throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        T found;
        while ((found = find.get()) == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException("Timed out after " + timeout.toSeconds() + " s waiting for " + what);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return found;
    }

    @Override
    public void close() {
        REGISTRY.remove(id);
    }
}
