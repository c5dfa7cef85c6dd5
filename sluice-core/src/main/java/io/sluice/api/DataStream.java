package io.sluice.api;

import io.sluice.api.eventtime.WatermarkStrategy;
import io.sluice.api.functions.FilterFunction;
import io.sluice.api.functions.FlatMapFunction;
import io.sluice.api.functions.KeySelector;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.SinkFunction;
import io.sluice.api.sink.AtLeastOnceFileSink;
import io.sluice.api.sink.ExactlyOnceFileSink;
import io.sluice.api.sink.PrintSink;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.graph.PartitionKind;
import io.sluice.operators.FilterOperator;
import io.sluice.operators.FlatMapOperator;
import io.sluice.operators.MapOperator;
import io.sluice.operators.SinkOperator;
import io.sluice.operators.StreamOperator;
import io.sluice.operators.TimestampsAndWatermarksOperator;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A stream of records of type {@code T}, and the operations that derive new streams from it.
 * Methods that configure the producing operator ({@link #name}, {@link #setParallelism},
 * {@link #returns}, {@link #disableChaining}) return this stream. Used on the thread that builds
 * the job; not thread-safe.
 */
public class DataStream<T> {
    protected final StreamExecutionEnvironment env;
    protected final Transformation<T> transformation;

    DataStream(StreamExecutionEnvironment env, Transformation<T> transformation) {
        this.env = env;
        this.transformation = transformation;
    }

    public <O> DataStream<O> map(MapFunction<T, O> fn) {
        return transform("Map", new MapOperator<>(Objects.requireNonNull(fn, "map function"), "Map"));
    }

    public DataStream<T> filter(FilterFunction<T> fn) {
        DataStream<T> out = transform("Filter", new FilterOperator<>(Objects.requireNonNull(fn, "filter function"), "Filter"));
        out.transformation.serializer = transformation.serializer;
        return out;
    }

    public <O> DataStream<O> flatMap(FlatMapFunction<T, O> fn) {
        return transform("FlatMap", new FlatMapOperator<>(Objects.requireNonNull(fn, "flatMap function"), "FlatMap"));
    }

    /**
     * Gives the records event timestamps and the stream watermarks, per subtask, by {@code strategy}
     * (chained to this operator). Watermarks arriving from upstream are replaced by this
     * strategy's, except the final one at the end of a bounded input.
     */
    public DataStream<T> assignTimestampsAndWatermarks(WatermarkStrategy<T> strategy) {
        Objects.requireNonNull(strategy, "watermark strategy");
        String name = "Timestamps/Watermarks";
        DataStream<T> out = transform(name, new TimestampsAndWatermarksOperator<>(strategy, name));
        out.transformation.serializer = transformation.serializer;
        out.transformation.timestamped = true;
        ((Transformation.OperatorNode<?, ?>) out.transformation).watermarkStrategy = strategy;
        return out;
    }

    /** Partitions by key: every record with the same key reaches the same subtask and its keyed state. */
    public <K> KeyedStream<T, K> keyBy(KeySelector<T, K> keySelector) {
        Objects.requireNonNull(keySelector, "key selector");
        Transformation.PartitionNode<T> p = new Transformation.PartitionNode<>(env.nextId(), transformation,
                PartitionKind.HASH, keySelector);
        return new KeyedStream<>(env, p, keySelector, null);
    }

    /**
     * Partitions by key, with {@code keySerializer} writing the keys into checkpoints: for key types
     * the default (dynamic) serializer does not handle, or to fix the keys' binary form.
     */
    public <K> KeyedStream<T, K> keyBy(KeySelector<T, K> keySelector, TypeSerializer<K> keySerializer) {
        Objects.requireNonNull(keySelector, "key selector");
        Objects.requireNonNull(keySerializer, "key serializer");
        Transformation.PartitionNode<T> p = new Transformation.PartitionNode<>(env.nextId(), transformation,
                PartitionKind.HASH, keySelector);
        return new KeyedStream<>(env, p, keySelector, keySerializer);
    }

    /** Spreads records round robin over the next operator's subtasks. */
    public DataStream<T> rebalance() {
        return new DataStream<>(env, new Transformation.PartitionNode<>(env.nextId(), transformation,
                PartitionKind.REBALANCE, null));
    }

    /** Merges this stream with others of the same type. */
    @SafeVarargs
    public final DataStream<T> union(DataStream<T>... others) {
        List<Transformation<T>> inputs = new ArrayList<>();
        inputs.add(transformation);
        for (DataStream<T> o : others) {
            if (o.env != env) {
                throw new IllegalArgumentException("Cannot union streams of different environments");
            }
            inputs.add(o.transformation);
        }
        return new DataStream<>(env, new Transformation.UnionNode<>(env.nextId(), inputs));
    }

    public DataStreamSink<T> addSink(SinkFunction<T> sink, String name) {
        Objects.requireNonNull(sink, "sink function");
        Transformation.OperatorNode<T, Void> node = new Transformation.OperatorNode<>(env.nextId(), "Sink: " + name,
                transformation, new SinkOperator<>(sink, "Sink: " + name), keySelectorOfInput(), true);
        node.keySerializer = keySerializerOfInput();
        env.register(node);
        return new DataStreamSink<>(node);
    }

    public DataStreamSink<T> addSink(SinkFunction<T> sink) {
        return addSink(sink, sink.getClass().getSimpleName());
    }

    /**
     * Writes to a sink whose output becomes visible exactly once, committed when the checkpoint that
     * covers it completes (see {@link io.sluice.api.sink.TwoPhaseCommitSink}).
     */
    public DataStreamSink<T> sinkTo(io.sluice.api.sink.TwoPhaseCommitSink<T, ?> sink, String name) {
        Objects.requireNonNull(sink, "sink");
        Transformation.OperatorNode<T, Void> node = new Transformation.OperatorNode<>(env.nextId(), "Sink: " + name,
                transformation, new io.sluice.operators.TwoPhaseCommitSinkOperator<>(sink, "Sink: " + name),
                keySelectorOfInput(), true);
        node.keySerializer = keySerializerOfInput();
        env.register(node);
        return new DataStreamSink<>(node);
    }

    public DataStreamSink<T> print() {
        return addSink(new PrintSink<>(), "print");
    }

    /**
     * Writes one line per record into {@code directory/part-<subtask>}, at least once: after a restart,
     * lines since the last completed checkpoint may appear twice. See {@link AtLeastOnceFileSink};
     * {@link #writeAsTextExactlyOnce} makes each line visible exactly once.
     */
    public DataStreamSink<T> writeAsTextAtLeastOnce(String directory) {
        return addSink(new AtLeastOnceFileSink<>(directory), "file " + directory);
    }

    /**
     * Writes one line per record into part files of {@code directory} that become visible exactly once,
     * when the checkpoint covering them completes; see {@link ExactlyOnceFileSink}.
     */
    public DataStreamSink<T> writeAsTextExactlyOnce(String directory) {
        return sinkTo(ExactlyOnceFileSink.<T>builder(directory).build(), "file " + directory);
    }

    /** Declares the serializer for this stream's records (needed for types the dynamic serializer does not know). */
    public DataStream<T> returns(TypeSerializer<T> serializer) {
        transformation.serializer = Objects.requireNonNull(serializer, "serializer");
        return this;
    }

    public DataStream<T> name(String name) {
        transformation.name = Objects.requireNonNull(name, "name");
        return this;
    }

    public DataStream<T> setParallelism(int parallelism) {
        if (transformation instanceof Transformation.PartitionNode<?> || transformation instanceof Transformation.UnionNode<?>) {
            throw new UnsupportedOperationException("Set the parallelism on the operator, not on a " + transformation.name);
        }
        transformation.parallelism = parallelism; // validated when the job graph is built, with the operator's name
        return this;
    }

    /** Starts a new chain at this operator, so it runs in its own task. */
    public DataStream<T> disableChaining() {
        transformation.chainingAllowed = false;
        return this;
    }

    protected KeySelector<T, ?> keySelectorOfInput() {
        return null;
    }

    /** The declared serializer of the input's keys, or {@code null} for the default. */
    protected TypeSerializer<?> keySerializerOfInput() {
        return null;
    }

    protected <O> DataStream<O> transform(String name, StreamOperator<T> operator) {
        Transformation.OperatorNode<T, O> node = new Transformation.OperatorNode<>(env.nextId(), name, transformation,
                operator, keySelectorOfInput(), false);
        node.keySerializer = keySerializerOfInput();
        env.register(node);
        return new DataStream<>(env, node);
    }

    public StreamExecutionEnvironment environment() {
        return env;
    }
}
