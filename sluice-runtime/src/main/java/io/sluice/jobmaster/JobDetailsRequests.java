package io.sluice.jobmaster;

import io.sluice.graph.JobId;
import io.sluice.jobmaster.deployment.SlotAssignment;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.protocol.TaskMetrics;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.util.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Answers requests for a job's details with task counters from its task executors. Counters are
 * asked for at most once per {@link #METRICS_MAX_AGE_NANOS} (a burst of status queries costs one
 * hop to the main thread each, and one request to the task executors per interval), and each
 * answer waits at most {@link #METRICS_TIMEOUT_MILLIS}: a task executor that does not answer must
 * not hold up the job's status. Once the job ended under this job master, its final details (with
 * the last counters) answer every request.
 *
 * <p>Threading: the job master's main thread, checked, except {@link #finalDetails()} (any thread).
 */
final class JobDetailsRequests {
    /** How long a status request waits for task counters before answering without them. */
    private static final long METRICS_TIMEOUT_MILLIS = 2_000;
    /** Task counters younger than this are served from memory. */
    private static final long METRICS_MAX_AGE_NANOS = 100_000_000L;

    private final JobId jobId;
    private final JobDetailsAssembler assembler;
    private final SlotAssignment slots;
    private final MainThreadExecutor mainThread;
    private final Clock clock;
    /** Whether the job has ended under this job master (its counters are no longer refreshed). */
    private final BooleanSupplier ended;

    /** Task counters of the last details request, kept for the final details. */
    private List<TaskMetrics> lastMetrics = List.of();
    private long lastMetricsNanos;
    private volatile JobDetails finalDetails;

    JobDetailsRequests(JobId jobId, JobDetailsAssembler assembler, SlotAssignment slots, MainThreadExecutor mainThread,
                       Clock clock, BooleanSupplier ended) {
        this.jobId = jobId;
        this.assembler = assembler;
        this.slots = slots;
        this.mainThread = mainThread;
        this.clock = clock;
        this.ended = ended;
    }

    /** The details with task counters; completes on the main thread. */
    CompletableFuture<JobDetails> request() {
        mainThread.assertRunningInMainThread();
        if (finalDetails != null) {
            return CompletableFuture.completedFuture(finalDetails);
        }
        long ageNanos = clock.nanoTime() - lastMetricsNanos;
        if (lastMetricsNanos != 0 && ageNanos < METRICS_MAX_AGE_NANOS) {
            // Recent counters: answer from this thread alone, without asking the task executors.
            return CompletableFuture.completedFuture(assembler.build(lastMetrics));
        }
        List<CompletableFuture<List<TaskMetrics>>> perExecutor = new ArrayList<>();
        for (TaskExecutorGateway te : slots.distinctTaskExecutors()) {
            perExecutor.add(te.requestTaskMetrics(jobId)
                    .completeOnTimeout(List.of(), METRICS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                    .exceptionally(e -> List.of()));
        }
        return CompletableFuture.allOf(perExecutor.toArray(new CompletableFuture<?>[0])).thenApplyAsync(ignored -> {
            List<TaskMetrics> metrics = perExecutor.stream().flatMap(f -> f.join().stream()).toList();
            if (!ended.getAsBoolean()) {
                lastMetrics = metrics;
                lastMetricsNanos = clock.nanoTime();
            }
            return finalDetails != null ? finalDetails : assembler.build(metrics);
        }, mainThread);
    }

    /** The details without task counters. */
    JobDetails current() {
        mainThread.assertRunningInMainThread();
        return assembler.build(List.of());
    }

    /** The job ended under this job master: its details now, with the last counters, answer from here on. */
    void captureFinal() {
        mainThread.assertRunningInMainThread();
        finalDetails = assembler.build(lastMetrics);
    }

    /** The details at the moment the job ended under this job master, or {@code null} before. Any thread. */
    JobDetails finalDetails() {
        return finalDetails;
    }
}
