package io.sluice.graph;

import io.sluice.api.errors.InvalidJobException;
import io.sluice.config.CheckpointingOptions;
import io.sluice.config.RestartStrategyConfig;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * The execution settings that travel with a job.
 *
 * @param checkpointInterval          time between checkpoint triggers; {@link Duration#ZERO} disables checkpointing
 * @param checkpointTimeout           a pending checkpoint older than this is aborted
 * @param retainedCheckpoints         how many completed checkpoints to keep (the latest N)
 * @param tolerableCheckpointFailures consecutive checkpoints failed by the tasks themselves tolerated before the
 *                                    job fails over (storage failures and timeouts never count)
 * @param checkpointDir               checkpoint storage location ({@code file:///...} or a path)
 * @param restartStrategy             what to do when a task fails
 * @param startWithoutCheckpointAllowed when recovery finds retained checkpoints but none is
 *                                    readable, start from empty state instead of failing
 * @param localRecovery               task executors keep a local copy of each task's last checkpointed
 *                                    state, so a task restarted on the same executor restores without
 *                                    reading checkpoint storage (the remote copy stays the source of truth)
 * @param inlineStateThreshold        a subtask's keyed-state snapshot of at most this many serialized bytes
 *                                    is kept inside the checkpoint metadata instead of a state file, so that
 *                                    restoring it reads nothing from storage; 0 writes every snapshot to a file.
 *                                    (A job graph stored by a build without this setting reads back 0.)
 * @param restoreFrom                 where the job starts from when it has no checkpoint of its own yet: a
 *                                    checkpoint directory or {@code _metadata} path, {@code latest:<jobId>}, or
 *                                    {@code null} / empty for empty state ({@code checkpoints.restore-from})
 * @param discardCheckpointsOnCancel  a CANCELED job deletes its checkpoints (the inverse of
 *                                    {@code checkpoints.retain-on-cancel}, so that a job graph stored by an older
 *                                    build reads back the default, retain)
 * @param checkpointStaleAfter        a job whose latest completed checkpoint is older is marked stale in its status
 *                                    ({@code checkpoints.stale-after}); {@code null} or zero: the default,
 *                                    {@link #effectiveCheckpointStaleAfter()} (a job graph stored by an older build
 *                                    reads back {@code null})
 * @param stateBackend                the state backend the job's keyed state lives in ({@code state.backend}: {@code heap},
 *                                    {@code rocksdb}), or {@code null} for the task executors' default (a job graph
 *                                    stored by an older build reads back {@code null})
 * @param incrementalCheckpoints      whether the state backend checkpoints incrementally if it can
 *                                    ({@code state.backend.incremental}), or {@code null} for the task executors' default
 */
public record JobConfig(Duration checkpointInterval, Duration checkpointTimeout, int retainedCheckpoints,
                        int tolerableCheckpointFailures, String checkpointDir, RestartStrategyConfig restartStrategy,
                        boolean startWithoutCheckpointAllowed, boolean localRecovery, int inlineStateThreshold,
                        String restoreFrom, boolean discardCheckpointsOnCancel, Duration checkpointStaleAfter,
                        String stateBackend, Boolean incrementalCheckpoints)
        implements Serializable {

    /** Settings with the task executors' default for incremental checkpoints. */
    public JobConfig(Duration checkpointInterval, Duration checkpointTimeout, int retainedCheckpoints,
                     int tolerableCheckpointFailures, String checkpointDir, RestartStrategyConfig restartStrategy,
                     boolean startWithoutCheckpointAllowed, boolean localRecovery, int inlineStateThreshold,
                     String restoreFrom, boolean discardCheckpointsOnCancel, Duration checkpointStaleAfter,
                     String stateBackend) {
        this(checkpointInterval, checkpointTimeout, retainedCheckpoints, tolerableCheckpointFailures, checkpointDir,
                restartStrategy, startWithoutCheckpointAllowed, localRecovery, inlineStateThreshold, restoreFrom,
                discardCheckpointsOnCancel, checkpointStaleAfter, stateBackend, null);
    }

    /** Settings with the task executors' default state backend. */
    public JobConfig(Duration checkpointInterval, Duration checkpointTimeout, int retainedCheckpoints,
                     int tolerableCheckpointFailures, String checkpointDir, RestartStrategyConfig restartStrategy,
                     boolean startWithoutCheckpointAllowed, boolean localRecovery, int inlineStateThreshold,
                     String restoreFrom, boolean discardCheckpointsOnCancel, Duration checkpointStaleAfter) {
        this(checkpointInterval, checkpointTimeout, retainedCheckpoints, tolerableCheckpointFailures, checkpointDir,
                restartStrategy, startWithoutCheckpointAllowed, localRecovery, inlineStateThreshold, restoreFrom,
                discardCheckpointsOnCancel, checkpointStaleAfter, null);
    }

    /** Settings with the default staleness threshold. */
    public JobConfig(Duration checkpointInterval, Duration checkpointTimeout, int retainedCheckpoints,
                     int tolerableCheckpointFailures, String checkpointDir, RestartStrategyConfig restartStrategy,
                     boolean startWithoutCheckpointAllowed, boolean localRecovery, int inlineStateThreshold,
                     String restoreFrom, boolean discardCheckpointsOnCancel) {
        this(checkpointInterval, checkpointTimeout, retainedCheckpoints, tolerableCheckpointFailures, checkpointDir,
                restartStrategy, startWithoutCheckpointAllowed, localRecovery, inlineStateThreshold, restoreFrom,
                discardCheckpointsOnCancel, null);
    }

    /** Settings that start from empty state and retain checkpoints on cancel. */
    public JobConfig(Duration checkpointInterval, Duration checkpointTimeout, int retainedCheckpoints,
                     int tolerableCheckpointFailures, String checkpointDir, RestartStrategyConfig restartStrategy,
                     boolean startWithoutCheckpointAllowed, boolean localRecovery, int inlineStateThreshold) {
        this(checkpointInterval, checkpointTimeout, retainedCheckpoints, tolerableCheckpointFailures, checkpointDir,
                restartStrategy, startWithoutCheckpointAllowed, localRecovery, inlineStateThreshold, null, false);
    }

    /** Settings with the default inline-state threshold. */
    public JobConfig(Duration checkpointInterval, Duration checkpointTimeout, int retainedCheckpoints,
                     int tolerableCheckpointFailures, String checkpointDir, RestartStrategyConfig restartStrategy,
                     boolean startWithoutCheckpointAllowed, boolean localRecovery) {
        this(checkpointInterval, checkpointTimeout, retainedCheckpoints, tolerableCheckpointFailures, checkpointDir,
                restartStrategy, startWithoutCheckpointAllowed, localRecovery,
                CheckpointingOptions.DEFAULT_INLINE_STATE_THRESHOLD);
    }

    /** Settings without task-local recovery. */
    public JobConfig(Duration checkpointInterval, Duration checkpointTimeout, int retainedCheckpoints,
                     int tolerableCheckpointFailures, String checkpointDir, RestartStrategyConfig restartStrategy,
                     boolean startWithoutCheckpointAllowed) {
        this(checkpointInterval, checkpointTimeout, retainedCheckpoints, tolerableCheckpointFailures, checkpointDir,
                restartStrategy, startWithoutCheckpointAllowed, false);
    }

    public JobConfig {
        Objects.requireNonNull(checkpointInterval, "checkpointInterval");
        Objects.requireNonNull(checkpointTimeout, "checkpointTimeout");
        Objects.requireNonNull(checkpointDir, "checkpointDir");
        Objects.requireNonNull(restartStrategy, "restartStrategy");
        if (checkpointInterval.isNegative()) {
            throw new InvalidJobException("The checkpoint interval must not be negative, got " + checkpointInterval);
        }
        if (!checkpointInterval.isZero() && checkpointInterval.toMillis() < 1) {
            throw new InvalidJobException("The checkpoint interval must be at least 1 ms, got " + checkpointInterval);
        }
        if (checkpointTimeout.isNegative() || checkpointTimeout.isZero()) {
            throw new InvalidJobException("The checkpoint timeout must be positive, got " + checkpointTimeout);
        }
        if (retainedCheckpoints < 1) {
            throw new InvalidJobException("At least one completed checkpoint must be retained, got " + retainedCheckpoints);
        }
        if (tolerableCheckpointFailures < 0) {
            throw new InvalidJobException("Tolerable checkpoint failures must be >= 0, got " + tolerableCheckpointFailures);
        }
        if (inlineStateThreshold < 0 || inlineStateThreshold > CheckpointingOptions.MAX_INLINE_STATE_THRESHOLD) {
            throw new InvalidJobException("The inline state threshold must be between 0 (off) and "
                    + CheckpointingOptions.MAX_INLINE_STATE_THRESHOLD + " bytes, got " + inlineStateThreshold
                    + "; larger state belongs in state files");
        }
        if (checkpointStaleAfter != null && checkpointStaleAfter.isNegative()) {
            throw new InvalidJobException("checkpoints.stale-after must not be negative, got " + checkpointStaleAfter);
        }
    }

    /**
     * The staleness threshold in force: {@link #checkpointStaleAfter} when set, else
     * {@value CheckpointingOptions#DEFAULT_STALE_INTERVALS} checkpoint intervals, at least
     * {@link CheckpointingOptions#MIN_DEFAULT_STALE_AFTER}.
     */
    public Duration effectiveCheckpointStaleAfter() {
        if (checkpointStaleAfter != null && !checkpointStaleAfter.isZero()) {
            return checkpointStaleAfter;
        }
        Duration intervals = checkpointInterval.multipliedBy(CheckpointingOptions.DEFAULT_STALE_INTERVALS);
        return intervals.compareTo(CheckpointingOptions.MIN_DEFAULT_STALE_AFTER) < 0
                ? CheckpointingOptions.MIN_DEFAULT_STALE_AFTER : intervals;
    }

    /** Whether the job starts from a retained checkpoint ({@link #restoreFrom}) when it has none of its own. */
    public boolean hasRestoreFrom() {
        return restoreFrom != null && !restoreFrom.isBlank();
    }

    /** The same settings, starting from {@code restoreFrom} (a checkpoint path or {@code latest:<jobId>}). */
    public JobConfig withRestoreFrom(String restoreFrom) {
        return new JobConfig(checkpointInterval, checkpointTimeout, retainedCheckpoints, tolerableCheckpointFailures,
                checkpointDir, restartStrategy, startWithoutCheckpointAllowed, localRecovery, inlineStateThreshold,
                restoreFrom, discardCheckpointsOnCancel, checkpointStaleAfter, stateBackend, incrementalCheckpoints);
    }

    /** The same settings with keyed state in {@code stateBackend} ({@code null}: the task executors' default). */
    public JobConfig withStateBackend(String stateBackend) {
        return new JobConfig(checkpointInterval, checkpointTimeout, retainedCheckpoints, tolerableCheckpointFailures,
                checkpointDir, restartStrategy, startWithoutCheckpointAllowed, localRecovery, inlineStateThreshold,
                restoreFrom, discardCheckpointsOnCancel, checkpointStaleAfter, stateBackend, incrementalCheckpoints);
    }

    /** The same settings with incremental checkpoints on or off ({@code null}: the task executors' default). */
    public JobConfig withIncrementalCheckpoints(Boolean incremental) {
        return new JobConfig(checkpointInterval, checkpointTimeout, retainedCheckpoints, tolerableCheckpointFailures,
                checkpointDir, restartStrategy, startWithoutCheckpointAllowed, localRecovery, inlineStateThreshold,
                restoreFrom, discardCheckpointsOnCancel, checkpointStaleAfter, stateBackend, incremental);
    }

    public boolean checkpointingEnabled() {
        return !checkpointInterval.isZero();
    }
}
