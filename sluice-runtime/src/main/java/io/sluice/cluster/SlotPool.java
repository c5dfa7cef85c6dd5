package io.sluice.cluster;

import io.sluice.graph.JobId;
import io.sluice.taskexecutor.TaskExecutorGateway;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The slots of a local cluster's task executors, and which job holds them. A job takes as many
 * slots as its largest vertex parallelism (slot sharing: slot i runs subtask i of every vertex).
 * Thread-safe; never blocks (a short lock, no I/O), so main threads may call it.
 */
public final class SlotPool {
    private final List<TaskExecutorGateway> slots = new ArrayList<>();
    private final Map<Integer, JobId> owners = new HashMap<>();

    public SlotPool(List<? extends TaskExecutorGateway> taskExecutors) {
        for (TaskExecutorGateway te : taskExecutors) {
            for (int i = 0; i < te.numberOfSlots(); i++) {
                slots.add(te);
            }
        }
    }

    public synchronized int totalSlots() {
        return slots.size();
    }

    public synchronized int freeSlots() {
        return slots.size() - owners.size();
    }

    /** Free slots per task executor id, in the order of the task executors. */
    public synchronized Map<String, Integer> freeSlotsByTaskExecutor() {
        Map<String, Integer> free = new java.util.LinkedHashMap<>();
        for (int i = 0; i < slots.size(); i++) {
            free.merge(slots.get(i).id(), owners.containsKey(i) ? 0 : 1, Integer::sum);
        }
        return free;
    }

    /**
     * Takes {@code count} slots for {@code jobId}, spread over the task executors, or throws
     * {@link NotEnoughSlotsException} (taking none). A job that already holds slots gets the same ones back.
     */
    public synchronized List<TaskExecutorGateway> allocate(JobId jobId, int count) throws NotEnoughSlotsException {
        List<Integer> mine = new ArrayList<>();
        owners.forEach((slot, owner) -> {
            if (owner.equals(jobId)) {
                mine.add(slot);
            }
        });
        for (int i = 0; i < slots.size() && mine.size() < count; i++) {
            if (!owners.containsKey(i)) {
                mine.add(i);
            }
        }
        if (mine.size() < count) {
            throw new NotEnoughSlotsException("Job " + jobId + " needs " + count + " slots, but only " + freeSlots()
                    + " of the cluster's " + slots.size() + " are free. Lower the job's parallelism, wait for other"
                    + " jobs to end, or start the cluster with more task executors or slots.");
        }
        List<TaskExecutorGateway> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            owners.put(mine.get(i), jobId);
            out.add(slots.get(mine.get(i)));
        }
        return out;
    }

    public synchronized void release(JobId jobId) {
        owners.values().removeIf(jobId::equals);
    }

    /** Not enough free slots for a job. */
    public static final class NotEnoughSlotsException extends Exception {
        public NotEnoughSlotsException(String message) {
            super(message);
        }
    }
}
