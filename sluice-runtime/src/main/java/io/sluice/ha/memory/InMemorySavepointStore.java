package io.sluice.ha.memory;

import io.sluice.checkpoint.Savepoint;
import io.sluice.graph.JobId;
import io.sluice.ha.SavepointStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@link SavepointStore} in memory: survives a job-manager failover within the JVM, not the JVM.
 * Threading: thread-safe (every method synchronized).
 */
final class InMemorySavepointStore implements SavepointStore {
    private final Map<JobId, TreeMap<Long, Savepoint>> byJob = new HashMap<>();

    @Override
    public synchronized void addSavepoint(Savepoint savepoint, int retain) {
        TreeMap<Long, Savepoint> entries = byJob.computeIfAbsent(savepoint.jobId(), id -> new TreeMap<>());
        entries.put(savepoint.checkpointId(), savepoint);
        while (entries.size() > retain) {
            entries.pollFirstEntry();
        }
    }

    @Override
    public synchronized Stored savepoints() {
        Map<JobId, List<Savepoint>> copy = new HashMap<>();
        byJob.forEach((id, entries) -> copy.put(id, new ArrayList<>(entries.values())));
        return new Stored(copy, List.of());
    }

    @Override
    public synchronized Stored savepoints(JobId jobId) {
        TreeMap<Long, Savepoint> entries = byJob.get(jobId);
        return new Stored(entries == null ? Map.of() : Map.of(jobId, new ArrayList<>(entries.values())), List.of());
    }
}
