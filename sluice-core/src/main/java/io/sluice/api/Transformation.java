package io.sluice.api;

import io.sluice.api.functions.KeySelector;
import io.sluice.api.source.Source;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.graph.PartitionKind;
import io.sluice.operators.StreamOperator;
import java.util.List;

/**
 * A node of the logical plan the API builds; the {@link JobGraphBuilder} turns the plan into a
 * {@link io.sluice.graph.JobGraph}. Physical nodes (sources, operators) become operators in
 * chains; virtual ones (partitioning, union) become edge properties. Built on the user's thread.
 */
abstract class Transformation<T> {
    final int id;
    String name;
    int parallelism = -1; // -1: the environment's default
    TypeSerializer<T> serializer = Serializers.dynamic();
    boolean chainingAllowed = true;
    /** Whether this stream's records carry event timestamps (a watermark strategy upstream): its edges then ship them. */
    boolean timestamped;

    Transformation(int id, String name) {
        this.id = id;
        this.name = name;
    }

    abstract List<Transformation<?>> inputs();

    static final class SourceNode<T> extends Transformation<T> {
        final Source<T> source;

        SourceNode(int id, String name, Source<T> source) {
            super(id, name);
            this.source = source;
            TypeSerializer<T> declared = source.serializer();
            if (declared != null) {
                this.serializer = declared;
            }
            this.timestamped = source.emitsTimestamps();
        }

        @Override
        List<Transformation<?>> inputs() {
            return List.of();
        }
    }

    /** An operator with one input; {@code keySelector} is set when the input is a keyed stream. */
    static final class OperatorNode<I, O> extends Transformation<O> {
        final Transformation<I> input;
        final StreamOperator<I> operator;
        final KeySelector<I, ?> keySelector;
        /** The declared serializer of the keys when the input is keyed; {@code null}: the dynamic serializer. */
        TypeSerializer<?> keySerializer;
        final boolean sink;
        /** The strategy of a timestamp/watermark operator, checked when the graph is built; else {@code null}. */
        io.sluice.api.eventtime.WatermarkStrategy<?> watermarkStrategy;
        /** The assigner of a window operator, checked when the graph is built; else {@code null}. */
        io.sluice.api.windowing.WindowAssigner windowAssigner;

        OperatorNode(int id, String name, Transformation<I> input, StreamOperator<I> operator,
                     KeySelector<I, ?> keySelector, boolean sink) {
            super(id, name);
            this.input = input;
            this.operator = operator;
            this.keySelector = keySelector;
            this.sink = sink;
            this.timestamped = input.timestamped;
        }

        @Override
        List<Transformation<?>> inputs() {
            return List.of(input);
        }
    }

    /** Virtual: changes how records reach the next operator. */
    static final class PartitionNode<T> extends Transformation<T> {
        final Transformation<T> input;
        final PartitionKind kind;
        final KeySelector<T, ?> keySelector;

        PartitionNode(int id, Transformation<T> input, PartitionKind kind, KeySelector<T, ?> keySelector) {
            super(id, kind.name().toLowerCase());
            this.input = input;
            this.kind = kind;
            this.keySelector = keySelector;
            this.serializer = input.serializer;
            this.timestamped = input.timestamped;
        }

        @Override
        List<Transformation<?>> inputs() {
            return List.of(input);
        }
    }

    /** Virtual: the records an operator emits to one of its side outputs. */
    static final class SideOutputNode<T> extends Transformation<T> {
        final Transformation<?> input;
        final io.sluice.api.functions.OutputTag<T> tag;

        SideOutputNode(int id, Transformation<?> input, io.sluice.api.functions.OutputTag<T> tag) {
            super(id, "side output " + tag.id());
            this.input = input;
            this.tag = tag;
            this.serializer = tag.serializer();
            this.timestamped = input.timestamped;
        }

        @Override
        List<Transformation<?>> inputs() {
            return List.of(input);
        }
    }

    /** Virtual: merges streams of the same type. */
    static final class UnionNode<T> extends Transformation<T> {
        final List<Transformation<T>> unionInputs;

        UnionNode(int id, List<Transformation<T>> inputs) {
            super(id, "union");
            this.unionInputs = List.copyOf(inputs);
            this.serializer = inputs.get(0).serializer;
            this.timestamped = inputs.stream().anyMatch(t -> t.timestamped);
        }

        @Override
        List<Transformation<?>> inputs() {
            return List.copyOf(unionInputs);
        }
    }
}
