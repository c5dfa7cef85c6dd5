package io.sluice.config;

import java.time.Duration;

/** Options for periodic checkpoints. Constants only; thread-safe. */
public final class CheckpointingOptions {
    private CheckpointingOptions() {}

    public static final ConfigOption<Duration> INTERVAL = ConfigOptions.key("checkpoints.interval")
            .durationType()
            .defaultValue(Duration.ZERO)
            .withConstraint(d -> !d.isNegative(), "zero or positive")
            .withDescription("Time between the starts of two checkpoints. 0 disables checkpointing,"
                    + " so nothing is checkpointed unless this is set.");

    public static final ConfigOption<String> DIRECTORY = ConfigOptions.key("checkpoints.dir")
            .stringType()
            .defaultValue("./sluice-data/checkpoints")
            .withConstraint(s -> !s.isBlank(), "a non-empty path")
            .withDescription("Directory under which each job's checkpoints are written.");

    public static final ConfigOption<Integer> RETAINED = ConfigOptions.key("checkpoints.retained")
            .intType()
            .defaultValue(3)
            .withConstraint(n -> n >= 1, "at least 1")
            .withDescription("Number of completed checkpoints kept; older ones are deleted.");

    /** Default of {@link #INLINE_STATE_THRESHOLD}: 20 KiB, as Flink's {@code state.storage.fs.memory-threshold}. */
    public static final int DEFAULT_INLINE_STATE_THRESHOLD = 20 * 1024;
    /** Upper bound of {@link #INLINE_STATE_THRESHOLD}: 1 MiB, so that metadata stays small enough to hold in memory. */
    public static final int MAX_INLINE_STATE_THRESHOLD = 1024 * 1024;

    public static final ConfigOption<Integer> INLINE_STATE_THRESHOLD =
            ConfigOptions.key("checkpoints.inline-state-threshold")
            .intType()
            .defaultValue(DEFAULT_INLINE_STATE_THRESHOLD)
            .withConstraint(n -> n >= 0 && n <= MAX_INLINE_STATE_THRESHOLD,
                    "between 0 and " + MAX_INLINE_STATE_THRESHOLD)
            .withDescription("Largest keyed-state snapshot of one subtask, in serialized bytes, that is kept"
                    + " inside the checkpoint metadata instead of in a state file of its own. The job manager"
                    + " holds the latest metadata in memory, so a task failover then restores such state"
                    + " without reading checkpoint storage. Larger snapshots are written to state files."
                    + " 0 writes every snapshot to a state file.");

    public static final ConfigOption<Duration> TIMEOUT = ConfigOptions.key("checkpoints.timeout")
            .durationType()
            .defaultValue(Duration.ofMinutes(10))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "positive")
            .withDescription("A checkpoint not completed within this time is aborted and its files deleted. It"
                    + " bounds the whole checkpoint: taking its id, the tasks' acknowledgements, and writing its"
                    + " metadata and pointer (so a hung mount cannot stall checkpointing for ever). A timeout"
                    + " never fails the job: the next checkpoint is tried one interval later.");

    public static final ConfigOption<Integer> TOLERABLE_FAILURES = ConfigOptions.key("checkpoints.tolerable-failures")
            .intType()
            .defaultValue(3)
            .withConstraint(n -> n >= 0, "zero or positive")
            .withDescription("Consecutive checkpoints failed by the tasks themselves (a task declined because its"
                    + " own work failed, for example its state could not be serialized) tolerated before the job"
                    + " is failed over. Failures of checkpoint storage or the HA services (unreachable, refused,"
                    + " hung, full, read-only) and timeouts are not counted: they never restart healthy tasks;"
                    + " the job keeps running, its status says since when checkpoints fail and why, and"
                    + " checkpoints resume by themselves when storage answers again.");

    public static final ConfigOption<Boolean> RETAIN_ON_CANCEL = ConfigOptions.key("checkpoints.retain-on-cancel")
            .booleanType()
            .defaultValue(true)
            .withDescription("Whether a CANCELED job keeps its retained checkpoints and their HA pointers, so that"
                    + " it can be started again from them (checkpoints.restore-from). A FAILED job always keeps"
                    + " them; a FINISHED job always deletes them.");

    public static final ConfigOption<String> RESTORE_FROM = ConfigOptions.key("checkpoints.restore-from")
            .stringType()
            .defaultValue("")
            .withDescription("Start the job from a savepoint (its directory, savepoint-<job>-<id>-<random>, wherever"
                    + " it was moved) or a retained checkpoint: a checkpoint directory"
                    + " (<checkpoints.dir>/<jobId>/chk-<n>, or a copy of one anywhere, under any name: its state files"
                    + " are relative to it) or its _metadata file, or latest:<jobId> for the newest readable retained"
                    + " checkpoint of an earlier job (found through the HA checkpoint pointers, else in checkpoints.dir)."
                    + " The job may have another parallelism (its keyed state is split by key groups) and another"
                    + " state.backend. Used only when the job has no checkpoint of its own yet. Empty: start from empty"
                    + " state.");

    /** How many checkpoint intervals without a completed checkpoint make a job stale, by default. */
    public static final int DEFAULT_STALE_INTERVALS = 5;
    /** The least default staleness threshold, so that short intervals do not flag a job at every slow checkpoint. */
    public static final Duration MIN_DEFAULT_STALE_AFTER = Duration.ofSeconds(30);

    public static final ConfigOption<Duration> STALE_AFTER = ConfigOptions.key("checkpoints.stale-after")
            .durationType()
            .defaultValue(Duration.ZERO)
            .withConstraint(d -> !d.isNegative(), "zero or positive")
            .withDescription("A running job whose latest completed checkpoint (or, before its first, its start) is"
                    + " older than this is marked \"no checkpoint since T\" in the job list and job details of REST,"
                    + " sluice list and the dashboard, and sluice_job_checkpoints_stale is 1. 0 (the default): "
                    + DEFAULT_STALE_INTERVALS + " checkpoint intervals, at least " + MIN_DEFAULT_STALE_AFTER.toSeconds()
                    + " s. Only marks: nothing is restarted or deleted.");

    /**
     * Default of {@link #ENDED_JOB_RETENTION}: 7 days, so that the checkpoints of a job that failed or was
     * cancelled on a Friday evening are still there to start it again from after the weekend, while a cluster
     * that runs many short jobs does not keep their state for ever.
     */
    public static final java.time.Duration DEFAULT_ENDED_JOB_RETENTION = Duration.ofDays(7);

    public static final ConfigOption<Duration> ENDED_JOB_RETENTION = ConfigOptions.key("checkpoints.ended-job-retention")
            .durationType()
            .defaultValue(DEFAULT_ENDED_JOB_RETENTION)
            .withConstraint(d -> !d.isNegative(), "zero or positive")
            .withDescription("How long the retained checkpoints of an ended job (FAILED, or CANCELED with"
                    + " checkpoints.retain-on-cancel) are kept after it ended, so that it can be started again from them"
                    + " (checkpoints.restore-from). Then the leading job manager deletes them (HA pointers first, then"
                    + " the files), never while a running job was started from them. 0 keeps them until they are"
                    + " deleted on request (DELETE /v1/jobs/{jobId}/checkpoints, sluice checkpoints delete). A job"
                    + " manager setting: it applies to every ended job its cluster knows. The default, 7 days, leaves time"
                    + " to start a job that failed on a Friday evening again after the weekend, while a cluster that runs"
                    + " many short jobs does not keep their state for ever.");
}
