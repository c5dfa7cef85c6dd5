package io.sluice.connector.kafka.format;

import io.sluice.api.functions.OutputTag;
import java.io.Serializable;
import java.util.Objects;

/**
 * What the Kafka source does with a record whose key or value does not deserialize:
 * <ul>
 *   <li>{@link #fail()} (the default): the task fails with an error naming the topic, partition and
 *       offset, the format and the cause; after the restart it meets the record again, so the job does
 *       not get past it until the record or the format is fixed (nothing is lost silently);</li>
 *   <li>{@link #skip()}: the record is dropped, counted and logged (the first and then every 1000th),
 *       and the source goes on;</li>
 *   <li>{@link #sideOutput(OutputTag)}: the record goes, as a {@link FailedRecord}, to that side output
 *       ({@code env.fromSource(...).getSideOutput(tag)}), for example to a dead-letter sink.</li>
 * </ul>
 * Immutable; travels in the job graph.
 */
public final class DeserializationErrorPolicy implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The three kinds. */
    public enum Kind { FAIL, SKIP, SIDE_OUTPUT }

    private final Kind kind;
    private final OutputTag<FailedRecord> tag;

    private DeserializationErrorPolicy(Kind kind, OutputTag<FailedRecord> tag) {
        this.kind = kind;
        this.tag = tag;
    }

    public static DeserializationErrorPolicy fail() {
        return new DeserializationErrorPolicy(Kind.FAIL, null);
    }

    public static DeserializationErrorPolicy skip() {
        return new DeserializationErrorPolicy(Kind.SKIP, null);
    }

    public static DeserializationErrorPolicy sideOutput(OutputTag<FailedRecord> tag) {
        return new DeserializationErrorPolicy(Kind.SIDE_OUTPUT, Objects.requireNonNull(tag, "tag"));
    }

    public Kind kind() {
        return kind;
    }

    /** The side output of {@link Kind#SIDE_OUTPUT}, else {@code null}. */
    public OutputTag<FailedRecord> tag() {
        return tag;
    }

    @Override
    public String toString() {
        return kind == Kind.SIDE_OUTPUT ? "side output " + tag.id() : kind.name().toLowerCase(java.util.Locale.ROOT);
    }
}
