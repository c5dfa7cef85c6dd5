package io.sluice.api.functions;

import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import org.jspecify.annotations.Nullable;

/**
 * What a running function can see of its task. Keyed state is available only to functions applied
 * on a {@code KeyedStream}; it is scoped to the key of the record being processed.
 */
public interface RuntimeContext {
    String taskName();

    int subtaskIndex();

    int parallelism();

    int maxParallelism();

    /** 0 for the first run of this task, incremented on each restart of the job. */
    int attemptNumber();

    /** The id of the job this task belongs to ({@code ""} where unknown, as in unit tests). */
    default String jobId() {
        return "";
    }

    /**
     * The checkpoint or savepoint of another job this task's job started from, or {@code null}: a fresh start,
     * or a restore from one of this job's own checkpoints (a restart, a job-manager failover).
     */
    default @Nullable RestoredCheckpoint restoredFrom() {
        return null;
    }

    /** The job's checkpoint interval, or {@code null} when checkpointing is off. */
    default java.time.@Nullable Duration checkpointInterval() {
        return null;
    }

    /**
     * The longest delay the job's restart strategy waits before restarting after a failure
     * ({@link java.time.Duration#ZERO} without restarts); sinks size timeouts that must outlive a restart by it.
     */
    default java.time.Duration maxRestartDelay() {
        return java.time.Duration.ZERO;
    }

    <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor);

    <T> ListState<T> getListState(ListStateDescriptor<T> descriptor);

    <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor);
}
