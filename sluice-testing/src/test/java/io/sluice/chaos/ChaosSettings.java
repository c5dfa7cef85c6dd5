package io.sluice.chaos;

import io.sluice.config.StateBackendType;
import java.time.Duration;
import java.util.Set;

/**
 * How big a chaos run is. Everything not named here runs with Sluice's defaults (restart
 * strategy, tolerable checkpoint failures, recovery backoff), except the checkpoint interval,
 * shortened so that a run of a few seconds sees many checkpoints.
 *
 * @param jobs               jobs run side by side
 * @param records            records per job (a bounded source)
 * @param recordsPerSecond   source rate per job
 * @param steps              fault steps per run
 * @param spanMillis         the faults are spread over about this long
 * @param actions            the actions steps are drawn from
 * @param checkpointInterval of every job
 * @param endTimeout         how long each job may take to end once storage is healed
 * @param mutableState       whether the counter mutates the value it got from state in place
 *                           ({@code byte[]}) or stores a new immutable {@code Long} each time
 * @param stateBytesPerKey   size of each key's mutable value (at least 8: the count, then padding).
 *                           Above the default {@code checkpoints.inline-state-threshold} (20 KiB) per
 *                           subtask, snapshots go to {@code .state} files, which
 *                           {@link ChaosAction#CORRUPT_STATE_FILE} needs; below it they are inline
 * @param backend            where the jobs' keyed state lives: the heap, or RocksDB with incremental
 *                           checkpoints (table files shared under {@code <jobId>/shared/}, the other files
 *                           of RocksDB in each checkpoint's directory)
 * @param materializeEvery   with RocksDB: {@code state.backend.rocksdb.changelog.materialize-every} of the task
 *                           executors (1, the default: no changelog checkpoints)
 */
record ChaosSettings(int jobs, long records, double recordsPerSecond, int steps, long spanMillis,
                     Set<ChaosAction> actions, Duration checkpointInterval, Duration endTimeout,
                     boolean mutableState, int stateBytesPerKey, StateBackendType backend, int materializeEvery) {
    ChaosSettings {
        if (stateBytesPerKey < Long.BYTES) {
            throw new IllegalArgumentException("stateBytesPerKey must be at least " + Long.BYTES + ", got "
                    + stateBytesPerKey);
        }
    }

    /** The same settings with keyed state on the heap. */
    ChaosSettings(int jobs, long records, double recordsPerSecond, int steps, long spanMillis,
                  Set<ChaosAction> actions, Duration checkpointInterval, Duration endTimeout,
                  boolean mutableState, int stateBytesPerKey) {
        this(jobs, records, recordsPerSecond, steps, spanMillis, actions, checkpointInterval, endTimeout, mutableState,
                stateBytesPerKey, StateBackendType.HEAP, 1);
    }

    /** These settings with keyed state in {@code backend} (RocksDB: incremental checkpoints). */
    ChaosSettings withBackend(StateBackendType backend) {
        return new ChaosSettings(jobs, records, recordsPerSecond, steps, spanMillis, actions, checkpointInterval,
                endTimeout, mutableState, stateBytesPerKey, backend, materializeEvery);
    }

    /** These settings with changelog checkpoints in RocksDB, materialising every {@code n}-th checkpoint. */
    ChaosSettings withChangelog(int n) {
        return new ChaosSettings(jobs, records, recordsPerSecond, steps, spanMillis, actions, checkpointInterval,
                endTimeout, mutableState, stateBytesPerKey, backend, n);
    }

    static final int KEYS = 8;
    static final int PARALLELISM = 2;
}
