package io.sluice.api.source;

import java.io.Serializable;
import org.jspecify.annotations.Nullable;

/**
 * A replayable source of records. Each parallel subtask gets its own {@link SourceReader}; its
 * position is part of every checkpoint, so that after a restart the reader resumes exactly where
 * the restored state left off.
 */
public interface Source<T> extends Serializable {
    SourceReader<T> createReader(int subtaskIndex, int parallelism) throws Exception;

    /**
     * Whether a job may be restored with this source at another parallelism than in the checkpoint:
     * its readers then get every old subtask's position through
     * {@link SourceReader#restoreRescaledPositions} and take their share of what is left. {@code false}
     * (the default) makes such a restore fail with an error that says to keep the source's parallelism,
     * since positions kept per subtask index would make some records read twice and others never.
     */
    default boolean redistributesPositions() {
        return false;
    }

    /** Bounded sources end, and a job whose sources all end finishes. */
    boolean isBounded();

    /**
     * Whether the reader gives its records event timestamps (through {@code Output.collect(record,
     * timestamp)}; Kafka records have one) and maybe watermarks: the stream's edges then ship the
     * timestamps, as after a watermark strategy. {@code false} by default.
     */
    default boolean emitsTimestamps() {
        return false;
    }

    /**
     * The serializer of this source's records, or {@code null} (the default) when it does not know
     * their type: the stream then uses {@link io.sluice.core.serialization.Serializers#dynamic()},
     * which writes a type tag before every value. {@code returns(...)} on the stream still wins.
     */
    default io.sluice.core.serialization.@Nullable TypeSerializer<T> serializer() {
        return null;
    }
}
