package io.sluice.metrics;

/**
 * The names and tag keys of Sluice's own meters, as registered with Micrometer (dotted; the
 * Prometheus endpoint shows them with underscores and unit suffixes, see {@code docs/metrics.md},
 * which lists every one).
 */
public final class MetricNames {
    /** Tag: the job id. */
    public static final String TAG_JOB = "job";
    /** Tag: the job's name. */
    public static final String TAG_JOB_NAME = "job_name";
    /** Tag: the vertex (operator chain) name. */
    public static final String TAG_VERTEX = "vertex";
    /** Tag: the vertex id in the job graph (names need not be unique). */
    public static final String TAG_VERTEX_ID = "vertex_id";
    /** Tag: the subtask index, 0-based. */
    public static final String TAG_SUBTASK = "subtask";
    /** Tag: a storage operation ({@code get}, {@code put}, {@code exists}, {@code list}, {@code delete}). */
    public static final String TAG_OPERATION = "operation";
    /** Tag: {@code success} or {@code failure}. */
    public static final String TAG_OUTCOME = "outcome";
    /** Tag: a job status such as {@code RUNNING}. */
    public static final String TAG_STATUS = "status";

    public static final String TASK_RECORDS_IN = "sluice.task.records.in";
    public static final String TASK_RECORDS_OUT = "sluice.task.records.out";
    public static final String TASK_BACKPRESSURE_TIME = "sluice.task.backpressure.time";
    public static final String TASK_BACKPRESSURE_RATIO = "sluice.task.backpressure.ratio";
    /** The size at which the task's record writers hand buffers to their channels now (smaller under backpressure). */
    public static final String TASK_OUTPUT_BUFFER_SIZE = "sluice.task.output.buffer.size";
    /** Records a task's window operators dropped as too late (no late-data side output). */
    public static final String TASK_LATE_RECORDS_DROPPED = "sluice.task.late.records.dropped";
    /** Keyed state: the native memory budget of the task's slot (RocksDB; NaN on the heap). */
    public static final String TASK_STATE_MEMORY_BUDGET = "sluice.task.state.memory.budget";
    /** Keyed state: the native memory the task's slot uses (RocksDB block cache with write buffers charged to it). */
    public static final String TASK_STATE_MEMORY_USAGE = "sluice.task.state.memory.usage";
    /** Keyed state: the task's state on local disk (RocksDB live files). */
    public static final String TASK_STATE_DISK = "sluice.task.state.disk";
    /** Keyed state: an estimate of the entries the task's backend holds. */
    public static final String TASK_STATE_ENTRIES = "sluice.task.state.entries";
    /** Committables of a task's exactly-once sinks not yet committed (gauge). */
    public static final String SINK_PENDING_COMMITTABLES = "sluice.sink.pending.committables";
    /** Age of the oldest of them, in seconds (gauge). */
    public static final String SINK_OLDEST_PENDING_COMMITTABLE_AGE = "sluice.sink.oldest.pending.committable.age";
    /** Failed commit attempts, each retried (counter). */
    public static final String SINK_COMMIT_RETRIES = "sluice.sink.commit.retries";
    /** Committables committed (counter). */
    public static final String SINK_COMMITTED = "sluice.sink.committed";

    public static final String JOB_CHECKPOINTS_COMPLETED = "sluice.job.checkpoints.completed";
    public static final String JOB_CHECKPOINTS_FAILED = "sluice.job.checkpoints.failed";
    public static final String JOB_CHECKPOINTS_FAILING = "sluice.job.checkpoints.failing";
    public static final String JOB_CHECKPOINTS_FAILING_SINCE = "sluice.job.checkpoints.failing.since";
    public static final String JOB_CHECKPOINT_DURATION = "sluice.job.checkpoint.duration";
    public static final String JOB_CHECKPOINT_SIZE = "sluice.job.checkpoint.size";
    public static final String JOB_RESTARTS = "sluice.job.restarts";
    public static final String JOB_STATUS_TIME = "sluice.job.status.time";
    public static final String JOB_RECOVERY_ATTEMPTS = "sluice.job.recovery.attempts";
    public static final String JOB_RECOVERY_DURATION = "sluice.job.recovery.duration";
    public static final String JOB_RECOVERY_ELAPSED = "sluice.job.recovery.elapsed";
    public static final String JOB_CRASH_LOOP = "sluice.job.crash.loop";
    public static final String JOB_CRASH_LOOP_SINCE = "sluice.job.crash.loop.since";
    public static final String JOB_CRASH_LOOP_RESTORE_NEVER_SUCCEEDS = "sluice.job.crash.loop.restore.never.succeeds";
    public static final String JOB_CHECKPOINTS_STALE = "sluice.job.checkpoints.stale";
    public static final String JOB_CHECKPOINT_AGE = "sluice.job.checkpoint.age";

    /** Job class loaders of the process not garbage-collected yet (per process, not per job). */
    public static final String JOB_CLASSLOADERS_LIVE = "sluice.job.classloaders.live";

    private MetricNames() {
    }
}
