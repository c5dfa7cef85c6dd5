package io.sluice.jobmaster;

import io.sluice.graph.JobId;
import io.sluice.jobmaster.deployment.SlotAssignment;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobHealth;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.protocol.TaskMetrics;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.util.Clock;
import io.sluice.job.ExecutionAttemptId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Publishes a job master's details and answers requests for them with task counters from its task
 * executors, without the job master's thread.
 *
 * <p>After every command on the job master's main thread, {@link #publish()} replaces one immutable
 * {@link Published} snapshot (the details without counters: status, transitions, each subtask's state,
 * checkpoints, failures, what it waits for; the deployment round; the task executors it deployed
 * to). {@link #request()}, from any thread, takes that snapshot and adds the task counters: asked
 * from the task executors directly at most once per {@link #METRICS_MAX_AGE_NANOS} (younger ones
 * are served from memory), each answer waiting at most {@link #METRICS_TIMEOUT_MILLIS}, so a task
 * executor that does not answer does not hold up the job's status, and nothing queues behind this
 * job master's work (or any other job's). A task that ended is no longer on its task executor: the
 * counters it reported with its end state ({@link #taskEnded}) stand for it. Once the job ended under
 * this job master, its final details (with those counters) answer every request. The health mark is
 * read live (a checkpoint grows stale without any command).
 *
 * <p>Threading: {@link #publish()}, {@link #taskEnded}, {@link #current()} and {@link #captureFinal()} on
 * the job master's main thread (checked); {@link #request()} and {@link #finalDetails()} from any thread.
 */
final class JobDetailsRequests {
    /** How long a status request waits for task counters before answering without them. */
    private static final long METRICS_TIMEOUT_MILLIS = 2_000;
    /** Task counters younger than this are served from memory. */
    private static final long METRICS_MAX_AGE_NANOS = 100_000_000L;

    /** The details without counters, the round whose counters count, and where its tasks run. Immutable. */
    record Published(JobDetails details, int round, List<TaskExecutorGateway> taskExecutors) {
        Published {
            taskExecutors = List.copyOf(taskExecutors);
        }
    }

    /** Task counters as last asked, and when ({@code atNanos} 0: never). Immutable. */
    private record Counters(List<TaskMetrics> metrics, long atNanos) {
    }

    private final JobId jobId;
    private final JobDetailsAssembler assembler;
    private final SlotAssignment slots;
    private final MainThreadExecutor mainThread;
    private final Clock clock;
    private final Supplier<JobHealth> health;
    /** Written on the main thread only. */
    private volatile Published published;
    /** Written by whichever thread got the latest answers; the newest wins. */
    private final AtomicReference<Counters> counters = new AtomicReference<>(new Counters(List.of(), 0));
    private volatile JobDetails finalDetails;
    /** The counters ended tasks of the current round reported with their end; written on the main thread only. */
    private final Map<ExecutionAttemptId, TaskMetrics> endedTasks = new ConcurrentHashMap<>();

    /** @param health the job's health mark now; any thread */
    JobDetailsRequests(JobId jobId, JobDetailsAssembler assembler, SlotAssignment slots, MainThreadExecutor mainThread,
                       Clock clock, Supplier<JobHealth> health) {
        this.jobId = jobId;
        this.assembler = assembler;
        this.slots = slots;
        this.mainThread = mainThread;
        this.clock = clock;
        this.health = health;
    }

    /**
     * Publishes the details of a job master whose main thread has not run yet ({@link
     * JobDetailsAssembler#beforeStart}). Its constructor only, before it is shared.
     */
    void publishBeforeStart(JobStatusTransition created) {
        if (published != null) {
            throw new IllegalStateException("The details of job " + jobId + " were already published");
        }
        published = new Published(assembler.beforeStart(created), 0, List.of());
    }

    /** Publishes the details as they are now. Main thread (checked). */
    void publish() {
        mainThread.assertRunningInMainThread();
        int round = assembler.roundNumber();
        endedTasks.keySet().removeIf(attempt -> attempt.deployment() < round);
        published = new Published(assembler.base(), round, slots.distinctTaskExecutors());
    }

    /** A task ended and reported its last counters: they stand for it from now on. Main thread (checked). */
    void taskEnded(TaskMetrics last) {
        mainThread.assertRunningInMainThread();
        endedTasks.put(last.attemptId(), last);
    }

    /** {@code asked} with the ended tasks' last counters in place of (or beside) what was asked of them. */
    private List<TaskMetrics> withEnded(List<TaskMetrics> asked) {
        if (endedTasks.isEmpty()) {
            return asked;
        }
        Map<ExecutionAttemptId, TaskMetrics> byAttempt = new LinkedHashMap<>();
        for (TaskMetrics m : asked) {
            byAttempt.put(m.attemptId(), m);
        }
        byAttempt.putAll(endedTasks);
        return List.copyOf(byAttempt.values());
    }

    /**
     * The published details with task counters. Any thread; completes at once when the counters are
     * recent or there is no task executor to ask, else when the task executors answered (or 2 s passed).
     */
    CompletableFuture<JobDetails> request() {
        JobDetails ended = finalDetails;
        if (ended != null) {
            return CompletableFuture.completedFuture(ended);
        }
        Published p = published;
        Counters last = counters.get();
        if (p.taskExecutors().isEmpty()
                || (last.atNanos() != 0 && clock.nanoTime() - last.atNanos() < METRICS_MAX_AGE_NANOS)) {
            return CompletableFuture.completedFuture(answer(p, last.metrics()));
        }
        List<CompletableFuture<List<TaskMetrics>>> perExecutor = new ArrayList<>();
        for (TaskExecutorGateway te : p.taskExecutors()) {
            perExecutor.add(te.requestTaskMetrics(jobId)
                    .completeOnTimeout(List.of(), METRICS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                    .exceptionally(e -> List.of()));
        }
        return CompletableFuture.allOf(perExecutor.toArray(new CompletableFuture<?>[0])).thenApply(ignored -> {
            List<TaskMetrics> metrics = perExecutor.stream().flatMap(f -> f.join().stream()).toList();
            if (!p.details().status().isTerminal()) {
                Counters fresh = new Counters(metrics, clock.nanoTime());
                counters.accumulateAndGet(fresh, (old, next) -> next.atNanos() >= old.atNanos() ? next : old);
            }
            JobDetails end = finalDetails;
            return end != null ? end : answer(p, metrics);
        });
    }

    private JobDetails answer(Published p, List<TaskMetrics> metrics) {
        return JobDetailsAssembler.withCounters(p.details(), p.round(), withEnded(metrics)).withHealth(health.get());
    }

    /** The details without task counters. Main thread. */
    JobDetails current() {
        mainThread.assertRunningInMainThread();
        return assembler.build(List.of());
    }

    /** The job ended under this job master: its details now, with the last counters, answer from here on. Main thread. */
    void captureFinal() {
        mainThread.assertRunningInMainThread();
        finalDetails = assembler.build(withEnded(counters.get().metrics()));
    }

    /** The details at the moment the job ended under this job master, or {@code null} before. Any thread. */
    JobDetails finalDetails() {
        return finalDetails;
    }
}
