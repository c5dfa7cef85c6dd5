package io.sluice.taskexecutor;

import io.sluice.graph.JobId;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The task executor's local copies of the state files its tasks wrote for recent checkpoints,
 * for task-local recovery: a task restarted on this executor restores from here instead of
 * reading checkpoint storage (which may be slow, remote, or down).
 *
 * <p>The copy in checkpoint storage stays the source of truth: a local copy is used only for the
 * same checkpoint, the same state file path and the same size as the restore handle names;
 * otherwise the caller reads the remote file. Per subtask at most {@value #MAX_COPIES_PER_SUBTASK}
 * copies are kept (pending checkpoints plus the latest completed one); a completed checkpoint drops
 * the older ones. Copies live in memory, so this suits the small-to-medium state of the heap backend.
 *
 * <p>Thread-safe: stored from I/O threads (uploads), read from task threads (restore), trimmed
 * from task threads (completion notices).
 */
public final class TaskLocalStateStore {
    static final int MAX_COPIES_PER_SUBTASK = 4;

    /** Whose state a copy is. */
    record SubtaskKey(JobId jobId, int vertexId, int subtaskIndex) {
    }

    private record LocalCopy(String stateFile, byte[] data) {
    }

    private final Map<SubtaskKey, TreeMap<Long, LocalCopy>> copies = new ConcurrentHashMap<>();
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();

    /** Keeps {@code data}, which was also written to checkpoint storage as {@code stateFile}. */
    public void store(JobId jobId, int vertexId, int subtaskIndex, long checkpointId, String stateFile, byte[] data) {
        TreeMap<Long, LocalCopy> forSubtask = copies.computeIfAbsent(new SubtaskKey(jobId, vertexId, subtaskIndex),
                k -> new TreeMap<>());
        synchronized (forSubtask) {
            forSubtask.put(checkpointId, new LocalCopy(stateFile, data));
            while (forSubtask.size() > MAX_COPIES_PER_SUBTASK) {
                forSubtask.pollFirstEntry();
            }
        }
    }

    /** The local copy of exactly this state file of this checkpoint, if it is here and matches. */
    public Optional<byte[]> retrieve(JobId jobId, int vertexId, int subtaskIndex, long checkpointId, String stateFile,
                                     long expectedSize) {
        TreeMap<Long, LocalCopy> forSubtask = copies.get(new SubtaskKey(jobId, vertexId, subtaskIndex));
        LocalCopy copy = null;
        if (forSubtask != null) {
            synchronized (forSubtask) {
                copy = forSubtask.get(checkpointId);
            }
        }
        if (copy != null && copy.stateFile().equals(stateFile) && copy.data().length == expectedSize) {
            hits.incrementAndGet();
            return Optional.of(copy.data());
        }
        misses.incrementAndGet();
        return Optional.empty();
    }

    /** Checkpoint {@code checkpointId} completed: older copies of this subtask are no longer needed. */
    public void confirm(JobId jobId, int vertexId, int subtaskIndex, long checkpointId) {
        TreeMap<Long, LocalCopy> forSubtask = copies.get(new SubtaskKey(jobId, vertexId, subtaskIndex));
        if (forSubtask != null) {
            synchronized (forSubtask) {
                forSubtask.headMap(checkpointId, false).clear();
            }
        }
    }

    /** Drops the copies of one subtask (it finished: nothing of it will be restored here). */
    public void discard(JobId jobId, int vertexId, int subtaskIndex) {
        copies.remove(new SubtaskKey(jobId, vertexId, subtaskIndex));
    }

    /** Drops every copy of a job (it ended, or this executor no longer runs it). */
    public void discardJob(JobId jobId) {
        copies.keySet().removeIf(k -> k.jobId().equals(jobId));
    }

    /** Restores served from a local copy. */
    public long hits() {
        return hits.get();
    }

    /** Restores that found no matching local copy and read checkpoint storage. */
    public long misses() {
        return misses.get();
    }
}
