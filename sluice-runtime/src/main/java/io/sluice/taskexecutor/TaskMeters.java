package io.sluice.taskexecutor;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.sluice.graph.JobVertex;
import io.sluice.metrics.BackpressureRatio;
import io.sluice.metrics.MeterGroup;
import io.sluice.metrics.MetricNames;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.KeyedStateMetrics;
import java.util.concurrent.TimeUnit;

/**
 * The meters of one task attempt: records in and out, time blocked on full output channels, and
 * the backpressure ratio (the fraction of wall time the output was blocked, over the time since
 * the previous reading, at least one second). Tags {@code job}, {@code job_name}, {@code vertex},
 * {@code vertex_id}, {@code subtask}. The values are those of the current attempt: a restarted
 * task starts again from 0, which Prometheus treats as a counter reset.
 *
 * <p>Registered by the task executor when the task is submitted, removed when it ends; a new
 * attempt with the same tags replaces the meters of the previous one. Thread-safe.
 */
final class TaskMeters implements AutoCloseable {
    /** Backpressure ratio readings closer together than this repeat the previous value. */
    static final long BACKPRESSURE_MIN_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final MeterGroup group;

    private TaskMeters(MeterGroup group) {
        this.group = group;
    }

    static TaskMeters register(MeterRegistry registry, Task task) {
        TaskDeploymentDescriptor tdd = task.descriptor();
        JobVertex v = tdd.vertex();
        Tags tags = Tags.of(MetricNames.TAG_JOB, tdd.jobGraph().jobId().value(),
                MetricNames.TAG_JOB_NAME, tdd.jobGraph().name(),
                MetricNames.TAG_VERTEX, v.name(),
                MetricNames.TAG_VERTEX_ID, Integer.toString(v.id()),
                MetricNames.TAG_SUBTASK, Integer.toString(tdd.subtaskIndex()));
        MeterGroup group = new MeterGroup(registry, tags);
        for (String name : new String[] {MetricNames.TASK_RECORDS_IN, MetricNames.TASK_RECORDS_OUT,
                MetricNames.TASK_BACKPRESSURE_TIME, MetricNames.TASK_BACKPRESSURE_RATIO,
                MetricNames.TASK_OUTPUT_BUFFER_SIZE,
                MetricNames.TASK_LATE_RECORDS_DROPPED, MetricNames.TASK_STATE_MEMORY_BUDGET,
                MetricNames.TASK_STATE_MEMORY_USAGE, MetricNames.TASK_STATE_DISK, MetricNames.TASK_STATE_ENTRIES,
                MetricNames.SINK_PENDING_COMMITTABLES, MetricNames.SINK_OLDEST_PENDING_COMMITTABLE_AGE,
                MetricNames.SINK_COMMIT_RETRIES, MetricNames.SINK_COMMITTED}) {
            group.removeExisting(name); // a previous attempt's meters, if its end was not seen yet
        }
        group.add(r -> FunctionCounter.builder(MetricNames.TASK_RECORDS_IN, task, t -> t.metrics().recordsIn())
                .description("Records the task read (sources: records emitted by the reader)").tags(tags).register(r));
        group.add(r -> FunctionCounter.builder(MetricNames.TASK_RECORDS_OUT, task, t -> t.metrics().recordsOut())
                .description("Records the task wrote to its output channels").tags(tags).register(r));
        group.add(r -> FunctionCounter.builder(MetricNames.TASK_LATE_RECORDS_DROPPED, task,
                        t -> t.metrics().lateRecordsDropped())
                .description("Records the task's event-time windows dropped as later than their allowed lateness"
                        + " (windows without a late-data side output)").tags(tags).register(r));
        group.add(r -> FunctionCounter.builder(MetricNames.TASK_BACKPRESSURE_TIME, task,
                        t -> t.outputBlockedNanos() / 1e9)
                .description("Time the task's output was blocked on full channels").baseUnit("seconds").tags(tags)
                .register(r));
        BackpressureRatio ratio = new BackpressureRatio(task::outputBlockedNanos, System::nanoTime,
                BACKPRESSURE_MIN_WINDOW_NANOS);
        group.add(r -> Gauge.builder(MetricNames.TASK_BACKPRESSURE_RATIO, ratio, BackpressureRatio::ratio)
                .description("Fraction of wall time the task's output was blocked on full channels, since the"
                        + " previous reading (at least 1 s)").tags(tags).strongReference(true).register(r));
        group.add(r -> Gauge.builder(MetricNames.TASK_OUTPUT_BUFFER_SIZE, task, Task::outputHandOverSize)
                .description("The size at which the task hands buffers to its output channels now: network.buffer-size,"
                        + " or less while its consumers backpressure it (network.in-flight-target); 0 without outputs")
                .baseUnit("bytes").tags(tags).strongReference(true).register(r));
        if (v.hasKeyedState()) {
            registerStateGauges(group, tags, task);
        }
        return new TaskMeters(group);
    }

    /**
     * The keyed state backend's figures ({@link KeyedStateMetrics}), NaN until the task has set up its
     * backend and where a figure does not apply (the heap has no native memory budget).
     */
    private static void registerStateGauges(MeterGroup group, Tags tags, Task task) {
        stateGauge(group, tags, task, MetricNames.TASK_STATE_MEMORY_BUDGET, KeyedStateMetrics::memoryBudgetBytes,
                "The native memory budget of the task's slot for keyed state (state.backend.rocksdb.memory.per-slot);"
                        + " tasks of one slot share it");
        stateGauge(group, tags, task, MetricNames.TASK_STATE_MEMORY_USAGE, KeyedStateMetrics::memoryUsageBytes,
                "Native memory the keyed state of the task's slot uses: RocksDB's block cache with the write buffers"
                        + " charged to it; tasks of one slot share it");
        stateGauge(group, tags, task, MetricNames.TASK_STATE_DISK, KeyedStateMetrics::diskBytes,
                "The task's keyed state on local disk (RocksDB's live files)");
        group.add(r -> Gauge.builder(MetricNames.TASK_STATE_ENTRIES, task, t -> metricsOf(t).estimatedEntries())
                .description("An estimate of the entries of the task's keyed state (keys, plus map entries of map states)")
                .tags(tags).strongReference(true).register(r));
    }

    private static void stateGauge(MeterGroup group, Tags tags, Task task, String name,
                                   java.util.function.ToDoubleFunction<KeyedStateMetrics> figure, String description) {
        group.add(r -> Gauge.builder(name, task, t -> figure.applyAsDouble(metricsOf(t)))
                .description(description).baseUnit("bytes").tags(tags).strongReference(true).register(r));
    }

    private static KeyedStateMetrics metricsOf(Task task) {
        KeyedStateBackend backend = task.keyedStateBackend();
        return backend == null ? KeyedStateMetrics.NONE : backend.metrics();
    }

    /**
     * Adds the meters of the task's exactly-once (two-phase-commit) sinks, if it has any: pending
     * committables, the oldest one's age, commit retries, committed. Called once the task runs (its
     * operators are known then). Any thread.
     */
    void registerSinkMetersIfAny(Task task) {
        if (task.metrics().commits() == null) {
            return;
        }
        Tags tags = group.tags();
        group.add(r -> Gauge.builder(MetricNames.SINK_PENDING_COMMITTABLES, task, t -> commitsOf(t).pendingCommittables())
                .description("Pre-committed output of the task's exactly-once sinks not yet committed (waiting for its"
                        + " checkpoint, or being retried)").tags(tags).strongReference(true).register(r));
        group.add(r -> Gauge.builder(MetricNames.SINK_OLDEST_PENDING_COMMITTABLE_AGE, task,
                        t -> commitsOf(t).oldestPendingAgeMillis() / 1000.0)
                .description("How long the oldest pending committable of the task's exactly-once sinks has waited")
                .baseUnit("seconds").tags(tags).strongReference(true).register(r));
        group.add(r -> FunctionCounter.builder(MetricNames.SINK_COMMIT_RETRIES, task, t -> commitsOf(t).commitRetries())
                .description("Failed commit attempts of the task's exactly-once sinks (each retried with backoff)")
                .tags(tags).register(r));
        group.add(r -> FunctionCounter.builder(MetricNames.SINK_COMMITTED, task, t -> commitsOf(t).committed())
                .description("Committables the task's exactly-once sinks committed").tags(tags).register(r));
    }

    private static io.sluice.operators.CommitStats commitsOf(Task task) {
        io.sluice.operators.CommitStats c = task.metrics().commits();
        return c == null ? io.sluice.operators.CommitStats.NONE : c;
    }

    /** Removes the meters. Idempotent. */
    @Override
    public void close() {
        group.close();
    }
}
