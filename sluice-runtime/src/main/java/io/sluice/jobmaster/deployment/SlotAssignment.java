package io.sluice.jobmaster.deployment;

import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.slots.SlotPool;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The slots of the next deployment (subtask i of every vertex runs on {@code slots().get(i)}), and
 * the wait for them. With a fixed list of slots (a local cluster) there is nothing to wait for.
 * With a dynamic {@link SlotPool} (cluster mode) the slots are taken from the pool before every
 * deployment; while there are too few, the job waits without consuming its restart budget,
 * {@link #waitingFor()} says for what ("waiting for 4 slots; 2 free on 1 task manager"), and the
 * pool's next added slots try again ({@link #listen}). A subtask index stays on its task executor
 * across deployments while that one is in the pool ({@link #keepPlaces}), so that a restart finds the
 * task-local copies it kept there.
 *
 * <p>Threading: the job master's main thread (checked); the pool's listener callbacks hop there.
 */
public final class SlotAssignment {
    private static final Logger LOG = LoggerFactory.getLogger(SlotAssignment.class);

    private final JobGraph jobGraph;
    private final SlotPool pool;
    private final MainThreadExecutor mainThread;
    /** The slots of the current (or next) deployment. */
    private List<TaskExecutorGateway> slots;
    /** The task executor id of each slot index at the last allocation from the pool (lost ones included). */
    private List<String> placed = List.of();
    /** What the job waits for while the pool has too few slots, else {@code null}. */
    private String waitingFor;
    /** Registered with the pool while the job master has not finished; {@code null} when not. */
    private SlotPool.Listener listener;

    /**
     * @param fixedSlots the slots to use without a pool (at least the job's required slots)
     * @param pool       the dynamic pool to take slots from, or {@code null} for {@code fixedSlots}
     * @throws IllegalArgumentException with fixed slots, fewer than the job needs
     */
    public SlotAssignment(JobGraph jobGraph, List<TaskExecutorGateway> fixedSlots, SlotPool pool,
                          MainThreadExecutor mainThread) {
        if (pool == null && fixedSlots.size() < jobGraph.requiredSlots()) {
            throw new IllegalArgumentException("Job " + jobGraph.jobId() + " needs " + jobGraph.requiredSlots()
                    + " slots, got " + fixedSlots.size());
        }
        this.jobGraph = jobGraph;
        this.pool = pool;
        this.mainThread = mainThread;
        this.slots = List.copyOf(fixedSlots);
    }

    /**
     * Listens to the pool (no-op without one, or when already listening): {@code lost} is told of a
     * task executor that left it (its id and why), {@code added} of new slots; both on the main thread.
     */
    public void listen(BiConsumer<String, String> lost, Runnable added) {
        mainThread.assertRunningInMainThread();
        if (pool == null || listener != null) {
            return;
        }
        listener = new SlotPool.Listener() {
            @Override
            public void taskExecutorLost(String taskExecutorId, Set<JobId> jobs, String reason) {
                mainThread.execute(() -> lost.accept(taskExecutorId, reason));
            }

            @Override
            public void slotsAdded() {
                mainThread.execute(added);
            }
        };
        pool.addListener(listener);
    }

    /** The job master finished: stops listening to the pool and waiting. */
    public void stopListening() {
        mainThread.assertRunningInMainThread();
        if (listener != null) {
            pool.removeListener(listener);
            listener = null;
        }
        waitingFor = null;
    }

    /**
     * Takes the slots for the next deployment from the pool (with fixed slots: nothing to do). Too
     * few: records what the job waits for (logged once per change, with {@code waitingIn}, the
     * status the job waits in) and returns false. Waiting is not a failure.
     */
    public boolean tryAllocate(JobStatus waitingIn) {
        mainThread.assertRunningInMainThread();
        if (pool == null) {
            return true;
        }
        try {
            slots = keepPlaces(placed, pool.allocate(jobGraph.jobId(), jobGraph.requiredSlots()));
            placed = slots.stream().map(TaskExecutorGateway::id).toList();
            if (waitingFor != null) {
                LOG.info("Job {} ({}): {} slot(s) available; deploying", jobGraph.jobId(), jobGraph.name(),
                        jobGraph.requiredSlots());
            }
            waitingFor = null;
            return true;
        } catch (SlotPool.NotEnoughSlotsException e) {
            String waiting = pool.describeShortage(jobGraph.jobId(), jobGraph.requiredSlots());
            if (!waiting.equals(waitingFor)) {
                LOG.info("Job {} ({}) is {}: {}", jobGraph.jobId(), jobGraph.name(), waitingIn, waiting);
            }
            waitingFor = waiting;
            return false;
        }
    }

    /**
     * Orders {@code allocated} so that each slot index stays on the task executor it was {@code placed} on where that
     * one is among them; the others fill the remaining indices in the pool's order. Task-local copies are kept per
     * subtask (vertex and index) where it ran, and the pool hands a job its held slots first: without this, after
     * the loss of the task executor of index 0 the survivor's slot would run index 0 and never find its copies.
     */
    static List<TaskExecutorGateway> keepPlaces(List<String> placed, List<TaskExecutorGateway> allocated) {
        TaskExecutorGateway[] out = new TaskExecutorGateway[allocated.size()];
        List<TaskExecutorGateway> rest = new ArrayList<>(allocated);
        for (int i = 0; i < Math.min(out.length, placed.size()); i++) {
            for (int j = 0; j < rest.size(); j++) {
                if (rest.get(j).id().equals(placed.get(i))) {
                    out[i] = rest.remove(j);
                    break;
                }
            }
        }
        int next = 0;
        for (int i = 0; i < out.length; i++) {
            if (out[i] == null) {
                out[i] = rest.get(next++);
            }
        }
        return List.of(out);
    }

    /** What the job waits for ("waiting for 4 slots; 2 free on 1 task manager"), or {@code null} when it does not. */
    public String waitingFor() {
        mainThread.assertRunningInMainThread();
        return waitingFor;
    }

    /** A task executor left the pool: nothing more is asked of it, and the wait says so. */
    public void taskExecutorLost(String taskExecutorId) {
        mainThread.assertRunningInMainThread();
        if (waitingFor != null) {
            waitingFor = pool.describeShortage(jobGraph.jobId(), jobGraph.requiredSlots());
        }
        // Task counters for status would wait for their timeout; the next deployment takes fresh slots anyway.
        slots = slots.stream().filter(te -> !te.id().equals(taskExecutorId)).toList();
    }

    /** The slots of the current (or next) deployment. */
    public List<TaskExecutorGateway> slots() {
        mainThread.assertRunningInMainThread();
        return slots;
    }

    /** Each task executor of {@link #slots()} once, in slot order. */
    public List<TaskExecutorGateway> distinctTaskExecutors() {
        mainThread.assertRunningInMainThread();
        List<TaskExecutorGateway> out = new ArrayList<>();
        for (TaskExecutorGateway te : slots) {
            if (!out.contains(te)) {
                out.add(te);
            }
        }
        return out;
    }
}
