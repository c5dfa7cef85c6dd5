package io.sluice.graph;

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
 * @param tolerableCheckpointFailures consecutive failed checkpoints tolerated before the job fails over
 * @param checkpointDir               checkpoint storage location ({@code file:///...} or a path)
 * @param restartStrategy             what to do when a task fails
 * @param startWithoutCheckpointAllowed when recovery finds retained checkpoints but none is
 *                                    readable, start from empty state instead of failing
 * @param localRecovery               task executors keep a local copy of each task's last checkpointed
 *                                    state, so a task restarted on the same executor restores without
 *                                    reading checkpoint storage (the remote copy stays the source of truth)
 */
public record JobConfig(Duration checkpointInterval, Duration checkpointTimeout, int retainedCheckpoints,
                        int tolerableCheckpointFailures, String checkpointDir, RestartStrategyConfig restartStrategy,
                        boolean startWithoutCheckpointAllowed, boolean localRecovery) implements Serializable {

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
    }

    public boolean checkpointingEnabled() {
        return !checkpointInterval.isZero();
    }
}
