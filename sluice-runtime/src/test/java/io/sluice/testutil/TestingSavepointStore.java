package io.sluice.testutil;

import io.sluice.checkpoint.Savepoint;
import io.sluice.graph.JobId;
import io.sluice.ha.SavepointStore;
import io.sluice.storage.StorageException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link SavepointStore} in memory whose reads can be told to fail ({@link #failReads}) and are
 * counted, with unreadable entries the test adds ({@link #addUnreadable}). Thread-safe (synchronized).
 */
public final class TestingSavepointStore implements SavepointStore {
    private final Map<JobId, TreeMap<Long, Savepoint>> byJob = new HashMap<>();
    private final List<String> unreadable = new ArrayList<>();
    private final AtomicInteger readFailures = new AtomicInteger();
    private final AtomicInteger reads = new AtomicInteger();
    private final AtomicInteger adds = new AtomicInteger();

    /** The next {@code n} reads fail with a storage error. */
    public void failReads(int n) {
        readFailures.set(n);
    }

    /** Reads made (failed ones included), of all jobs or of one. */
    public int reads() {
        return reads.get();
    }

    public int adds() {
        return adds.get();
    }

    public synchronized void addUnreadable(String what) {
        unreadable.add(what);
    }

    @Override
    public synchronized void addSavepoint(Savepoint savepoint, int retain) {
        adds.incrementAndGet();
        TreeMap<Long, Savepoint> entries = byJob.computeIfAbsent(savepoint.jobId(), id -> new TreeMap<>());
        entries.put(savepoint.checkpointId(), savepoint);
        while (entries.size() > retain) {
            entries.pollFirstEntry();
        }
    }

    @Override
    public synchronized Stored savepoints() {
        read();
        Map<JobId, List<Savepoint>> copy = new HashMap<>();
        byJob.forEach((id, entries) -> copy.put(id, new ArrayList<>(entries.values())));
        return new Stored(copy, unreadable);
    }

    @Override
    public synchronized Stored savepoints(JobId jobId) {
        read();
        TreeMap<Long, Savepoint> entries = byJob.get(jobId);
        return new Stored(entries == null ? Map.of() : Map.of(jobId, new ArrayList<>(entries.values())), List.of());
    }

    private void read() {
        reads.incrementAndGet();
        if (readFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new StorageException("savepoint store unreachable (injected)");
        }
    }
}
