package io.sluice.slots;

import io.sluice.graph.JobId;
import io.sluice.protocol.TaskExecutorGateway;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * The slots of a cluster's task executors, and which job holds them. A job takes as many slots as
 * its largest vertex parallelism (slot sharing: slot i runs subtask i of every vertex).
 *
 * <p>Two kinds: a <b>static</b> pool ({@link #SlotPool(List)}, a {@code LocalCluster}'s task
 * executors, fixed for its life) and a <b>dynamic</b> one ({@link #dynamic()}, cluster mode), whose
 * task executors are added when they register ({@link #addTaskExecutor}) and removed when they are
 * lost or register again ({@link #removeTaskExecutor}). Removing a task executor frees its slots and
 * tells every {@link Listener} (job masters fail over the tasks they had there); adding one tells
 * them that slots arrived (a job waiting for slots tries again). A job does not fail for lack of
 * slots in a dynamic pool: it waits, and {@link #describeShortage} says for what.
 *
 * <p>Threading: thread-safe; never blocks (a short lock, no I/O), so main threads may call it.
 * Listeners are called on the thread that changed the pool, after the lock is released; they must
 * not block (hand the news to your own main thread).
 */
public final class SlotPool {
    /** Told of changes of a dynamic pool; called outside the pool's lock, must not block. */
    public interface Listener {
        /**
         * Task executor {@code taskExecutorId} is gone and with it its slots (and the tasks in them).
         *
         * @param jobs   the jobs that held slots on it
         * @param reason why, for a job's failure message (e.g. "task manager tm-1 lost: no heartbeat for 6 s")
         */
        void taskExecutorLost(String taskExecutorId, Set<JobId> jobs, String reason);

        /** Slots were added (a task executor registered). */
        void slotsAdded();
    }

    /** One registered task executor and the owners of its slots ({@code null}: free). */
    private static final class Member {
        final TaskExecutorGateway gateway;
        final String instanceId;
        final JobId[] owners;

        Member(TaskExecutorGateway gateway, String instanceId) {
            this.gateway = gateway;
            this.instanceId = instanceId;
            this.owners = new JobId[gateway.numberOfSlots()];
        }
    }

    private final boolean dynamic;
    /** By task executor id, in the order they were added. */
    private final Map<String, Member> members = new LinkedHashMap<>();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    /** A static pool over the given task executors (a local cluster's). */
    public SlotPool(List<? extends TaskExecutorGateway> taskExecutors) {
        this(false);
        for (TaskExecutorGateway te : taskExecutors) {
            if (members.putIfAbsent(te.id(), new Member(te, "static")) != null) {
                throw new IllegalArgumentException("Two task executors share the id " + te.id());
            }
        }
    }

    private SlotPool(boolean dynamic) {
        this.dynamic = dynamic;
    }

    /** An empty pool whose task executors come and go (cluster mode). */
    public static SlotPool dynamic() {
        return new SlotPool(true);
    }

    /** Whether task executors come and go ({@link #dynamic()}): jobs then wait for slots instead of failing. */
    public boolean isDynamic() {
        return dynamic;
    }

    public void addListener(Listener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeListener(Listener listener) {
        listeners.remove(listener);
    }

    /**
     * Adds a registered task executor's slots. A task executor already in the pool under the same id
     * is removed first (its tasks are gone: the process restarted, or it re-registered after losing
     * this job manager), with {@code replacedReason} as the reason given to the listeners.
     *
     * @param instanceId the task executor process's instance id (a new one for every process start)
     * @return whether an earlier registration under the same id was replaced
     */
    public boolean addTaskExecutor(TaskExecutorGateway gateway, String instanceId, String replacedReason) {
        Objects.requireNonNull(gateway, "gateway");
        Objects.requireNonNull(instanceId, "instanceId");
        if (gateway.numberOfSlots() < 1) {
            throw new IllegalArgumentException("Task executor " + gateway.id() + " offers " + gateway.numberOfSlots()
                    + " slots; it needs at least one");
        }
        boolean replaced = removeTaskExecutor(gateway.id(), replacedReason);
        synchronized (this) {
            members.put(gateway.id(), new Member(gateway, instanceId));
        }
        listeners.forEach(Listener::slotsAdded);
        return replaced;
    }

    /**
     * Removes a task executor and its slots; tells the listeners which jobs held slots there.
     *
     * @return whether it was in the pool
     */
    public boolean removeTaskExecutor(String taskExecutorId, String reason) {
        Member removed;
        Set<JobId> jobs = new java.util.LinkedHashSet<>();
        synchronized (this) {
            removed = members.remove(taskExecutorId);
            if (removed == null) {
                return false;
            }
            for (JobId owner : removed.owners) {
                if (owner != null) {
                    jobs.add(owner);
                }
            }
        }
        listeners.forEach(l -> l.taskExecutorLost(taskExecutorId, Set.copyOf(jobs), reason));
        return true;
    }

    /** The instance id the task executor registered with, or {@code null} if it is not in the pool. */
    public synchronized @Nullable String instanceIdOf(String taskExecutorId) {
        Member m = members.get(taskExecutorId);
        return m == null ? null : m.instanceId;
    }

    /** The ids of the task executors in the pool, in the order they were added. */
    public synchronized List<String> taskExecutorIds() {
        return List.copyOf(members.keySet());
    }

    /** The task executors in the pool, in the order they were added. */
    public synchronized List<TaskExecutorGateway> taskExecutors() {
        return members.values().stream().map(m -> m.gateway).toList();
    }

    public synchronized int totalSlots() {
        int n = 0;
        for (Member m : members.values()) {
            n += m.owners.length;
        }
        return n;
    }

    public synchronized int freeSlots() {
        int n = 0;
        for (Member m : members.values()) {
            for (JobId owner : m.owners) {
                if (owner == null) {
                    n++;
                }
            }
        }
        return n;
    }

    /** Free slots per task executor id, in the order of the task executors. */
    public synchronized Map<String, Integer> freeSlotsByTaskExecutor() {
        Map<String, Integer> free = new LinkedHashMap<>();
        for (Map.Entry<String, Member> e : members.entrySet()) {
            int n = 0;
            for (JobId owner : e.getValue().owners) {
                if (owner == null) {
                    n++;
                }
            }
            free.put(e.getKey(), n);
        }
        return free;
    }

    /**
     * What a job that needs {@code count} slots waits for, counting the slots it holds already as
     * available to it: "waiting for 4 slots; 2 free on 1 task manager".
     */
    public synchronized String describeShortage(JobId jobId, int count) {
        int available = 0;
        int on = 0;
        for (Member m : members.values()) {
            int here = 0;
            for (JobId owner : m.owners) {
                if (owner == null || owner.equals(jobId)) {
                    here++;
                }
            }
            available += here;
            on += here > 0 ? 1 : 0;
        }
        return "waiting for " + count + " slot" + (count == 1 ? "" : "s") + "; " + available + " free on " + on
                + " task manager" + (on == 1 ? "" : "s");
    }

    /**
     * Takes {@code count} slots for {@code jobId}, spread over the task executors, or throws
     * {@link NotEnoughSlotsException} (taking none; slots the job holds already stay its own). A job
     * that already holds slots gets the same ones back first.
     */
    public synchronized List<TaskExecutorGateway> allocate(JobId jobId, int count) throws NotEnoughSlotsException {
        List<Member> slotMember = new ArrayList<>();
        List<Integer> slotIndex = new ArrayList<>();
        for (Member m : members.values()) {
            for (int i = 0; i < m.owners.length && slotMember.size() < count; i++) {
                if (jobId.equals(m.owners[i])) {
                    slotMember.add(m);
                    slotIndex.add(i);
                }
            }
        }
        for (Member m : members.values()) {
            for (int i = 0; i < m.owners.length && slotMember.size() < count; i++) {
                if (m.owners[i] == null) {
                    slotMember.add(m);
                    slotIndex.add(i);
                }
            }
        }
        if (slotMember.size() < count) {
            int total = totalSlots();
            throw new NotEnoughSlotsException("Job " + jobId + " needs " + count + " slots, but only " + slotMember.size()
                    + " of the cluster's " + total + " are free. Lower the job's parallelism, wait for other"
                    + " jobs to end, or start the cluster with more task executors or slots.");
        }
        List<TaskExecutorGateway> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            slotMember.get(i).owners[slotIndex.get(i)] = jobId;
            out.add(slotMember.get(i).gateway);
        }
        return out;
    }

    public synchronized void release(JobId jobId) {
        for (Member m : members.values()) {
            for (int i = 0; i < m.owners.length; i++) {
                if (jobId.equals(m.owners[i])) {
                    m.owners[i] = null;
                }
            }
        }
    }

    /** Not enough free slots for a job. */
    public static final class NotEnoughSlotsException extends Exception {
        public NotEnoughSlotsException(String message) {
            super(message);
        }
    }
}
