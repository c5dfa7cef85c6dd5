package io.sluice.graph;

import io.sluice.api.errors.InvalidJobException;
import io.sluice.api.functions.KeySelector;
import io.sluice.api.source.Source;
import io.sluice.core.serialization.LegacySerializerObjectInputStream;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.operators.StreamOperator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The user code of one job vertex: its source (if any), its operator chain, the key selector of
 * a keyed input, and per edge the record serializer (and key selector of hash edges).
 *
 * @param source            the source of a source vertex, else {@code null}
 * @param operators         the chain, in order; the first consumes the vertex input (or the source)
 * @param inputKeySelector  the key selector when the input is keyed, else {@code null}
 * @param inputSerializers  edge id -> serializer of the records arriving on that edge
 * @param outputs           edge id -> how to write the records leaving on that edge
 * @param inputKeySerializer the serializer of the keys of a keyed input (for state snapshots), or
 *                          {@code null} for the dynamic serializer
 * @param timestampedInputs the input edges whose records carry an event timestamp (a {@code long}
 *                          before each record in the channel); {@code null} (from older payloads): none
 */
public record VertexPayload(Source<?> source, List<StreamOperator<?>> operators, KeySelector<?, ?> inputKeySelector,
                            Map<Integer, TypeSerializer<?>> inputSerializers,
                            Map<Integer, OutputSpec> outputs, TypeSerializer<?> inputKeySerializer,
                            Set<Integer> timestampedInputs) implements Serializable {

    /** A payload none of whose inputs carry event timestamps (and so the form of payloads persisted by older builds). */
    public VertexPayload(Source<?> source, List<StreamOperator<?>> operators, KeySelector<?, ?> inputKeySelector,
                         Map<Integer, TypeSerializer<?>> inputSerializers, Map<Integer, OutputSpec> outputs,
                         TypeSerializer<?> inputKeySerializer) {
        this(source, operators, inputKeySelector, inputSerializers, outputs, inputKeySerializer, Set.of());
    }

    public VertexPayload {
        timestampedInputs = timestampedInputs == null ? Set.of() : Set.copyOf(timestampedInputs);
    }

    /** A payload whose keys, if keyed, use the dynamic serializer. */
    public VertexPayload(Source<?> source, List<StreamOperator<?>> operators, KeySelector<?, ?> inputKeySelector,
                         Map<Integer, TypeSerializer<?>> inputSerializers, Map<Integer, OutputSpec> outputs) {
        this(source, operators, inputKeySelector, inputSerializers, outputs, null);
    }

    /**
     * How a vertex writes one output edge.
     *
     * @param timestamped whether each record is preceded by its event timestamp in the channel
     * @param sideOutput  the id of the side output ({@code OutputTag}) the edge carries, or {@code null}
     *                    for the main output
     */
    public record OutputSpec(TypeSerializer<?> serializer, KeySelector<?, ?> keySelector, PartitionKind partitioning,
                             boolean timestamped, String sideOutput) implements Serializable {
        /** A main-output edge without timestamps. */
        public OutputSpec(TypeSerializer<?> serializer, KeySelector<?, ?> keySelector, PartitionKind partitioning) {
            this(serializer, keySelector, partitioning, false, null);
        }
    }

    /** Serializes, or explains which piece of user code cannot be serialized. */
    public byte[] serialize(String vertexName) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(this);
        } catch (NotSerializableException e) {
            throw new InvalidJobException("The user code of '" + vertexName + "' cannot be serialized: "
                    + e.getMessage() + " is not Serializable. Functions, and everything they capture, must"
                    + " implement java.io.Serializable (capture values, not enclosing objects).", e);
        } catch (IOException | RuntimeException e) {
            throw new InvalidJobException("The user code of '" + vertexName + "' cannot be serialized: " + e, e);
        }
        return bytes.toByteArray();
    }

    static VertexPayload deserialize(byte[] payload, ClassLoader classLoader, String vertexName) {
        try (ObjectInputStream in = new LegacySerializerObjectInputStream(new ByteArrayInputStream(payload), classLoader)) {
            return (VertexPayload) in.readObject();
        } catch (IOException | ClassNotFoundException e) {
            throw new InvalidJobException("The user code of '" + vertexName + "' cannot be deserialized: " + e, e);
        }
    }
}
