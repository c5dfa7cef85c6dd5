package io.sluice.taskexecutor;

import io.sluice.core.serialization.TypeSerializer;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.state.KeyGroupRange;
import io.sluice.util.Clock;
import java.util.Objects;

/**
 * What a task tells a {@link KeyedStateBackendFactory} about the keyed state backend it needs.
 *
 * @param taskName       for messages, e.g. {@code Count (2/4)}
 * @param jobId          the job the task belongs to
 * @param jobConfig      the job's settings (a factory may choose a backend per job from them)
 * @param vertexId       the task's vertex
 * @param subtaskIndex   the task's subtask index
 * @param keyGroupRange  the key groups this subtask owns
 * @param maxParallelism the number of key groups of the job
 * @param keySerializer  writes the keys into snapshots (the declared one, or the dynamic default)
 * @param classLoader    the job's user-code class loader
 * @param clock          the task's processing time (for time-based state features, such as a time-to-live)
 */
public record KeyedStateBackendSpec(String taskName, JobId jobId, JobConfig jobConfig, int vertexId, int subtaskIndex,
                                    KeyGroupRange keyGroupRange, int maxParallelism, TypeSerializer<?> keySerializer,
                                    ClassLoader classLoader, Clock clock) {
    public KeyedStateBackendSpec {
        Objects.requireNonNull(taskName, "taskName");
        Objects.requireNonNull(keyGroupRange, "keyGroupRange");
        Objects.requireNonNull(keySerializer, "keySerializer");
        Objects.requireNonNull(clock, "clock");
    }
}
