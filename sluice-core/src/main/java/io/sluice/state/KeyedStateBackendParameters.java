package io.sluice.state;

import io.sluice.core.serialization.TypeSerializer;
import io.sluice.util.Clock;
import java.util.Objects;

/**
 * What a {@link StateBackend} needs to create the keyed state backend of one task.
 *
 * @param owner          names the task in messages, logs and local directory names, for example
 *                       {@code count per key (2/4)}
 * @param slot           the slot the task runs in: backends of one slot share one memory budget. The
 *                       runtime names a slot by its job and subtask index (slot sharing puts one subtask
 *                       of every vertex with the same index in one slot)
 * @param range          the key groups the task owns ({@link KeyGroups#rangeForSubtask})
 * @param maxParallelism the job's number of key groups
 * @param keySerializer  writes the keys, in snapshots and (RocksDB) in the store itself
 * @param clock          processing time, for state time-to-live
 * @param incremental    whether to checkpoint incrementally if the backend can, or {@code null} for its
 *                       configured default ({@code state.backend.incremental})
 * @param localRecovery  whether the task keeps task-local copies of its checkpoints (the job's
 *                       {@code state.backend.local-recovery}): a backend may then keep files for a local restore
 *                       only ({@link CheckpointFiles#keepLocal})
 */
public record KeyedStateBackendParameters(String owner, String slot, KeyGroupRange range, int maxParallelism,
                                          TypeSerializer<?> keySerializer, Clock clock, Boolean incremental,
                                          boolean localRecovery) {
    /** Parameters of a task that keeps no task-local copies. */
    public KeyedStateBackendParameters(String owner, String slot, KeyGroupRange range, int maxParallelism,
                                       TypeSerializer<?> keySerializer, Clock clock, Boolean incremental) {
        this(owner, slot, range, maxParallelism, keySerializer, clock, incremental, false);
    }

    /** Parameters with the backend's default for incremental checkpoints. */
    public KeyedStateBackendParameters(String owner, String slot, KeyGroupRange range, int maxParallelism,
                                       TypeSerializer<?> keySerializer, Clock clock) {
        this(owner, slot, range, maxParallelism, keySerializer, clock, null, false);
    }

    public KeyedStateBackendParameters {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(slot, "slot");
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(keySerializer, "keySerializer");
        Objects.requireNonNull(clock, "clock");
        if (maxParallelism <= 0) {
            throw new IllegalArgumentException("Max parallelism must be positive, was " + maxParallelism);
        }
    }
}
