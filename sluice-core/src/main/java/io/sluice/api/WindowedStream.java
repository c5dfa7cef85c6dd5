package io.sluice.api;

import io.sluice.api.functions.AggregateFunction;
import io.sluice.api.functions.OutputTag;
import io.sluice.api.functions.ProcessWindowFunction;
import io.sluice.api.functions.ReduceFunction;
import io.sluice.api.windowing.WindowAssigner;
import io.sluice.operators.windowing.WindowContents;
import io.sluice.operators.windowing.WindowOperator;
import java.time.Duration;
import java.util.Objects;

/**
 * A keyed stream cut into windows ({@code keyedStream.window(assigner)}), to be finished with
 * {@link #reduce}, {@link #aggregate} or {@link #process}. Event-time windows need timestamps
 * (a {@code WatermarkStrategy} upstream); the job graph builder says so otherwise. Built on the thread
 * that builds the job; not thread-safe.
 */
public final class WindowedStream<T, K> {
    private final KeyedStream<T, K> input;
    private final WindowAssigner assigner;
    private Duration allowedLateness = Duration.ZERO;
    private OutputTag<T> lateTag;

    WindowedStream(KeyedStream<T, K> input, WindowAssigner assigner) {
        this.input = input;
        this.assigner = Objects.requireNonNull(assigner, "window assigner");
    }

    /**
     * Keeps each window for {@code lateness} after it fired (in event time): a record arriving in that
     * time updates the window and fires it again. Default zero.
     */
    public WindowedStream<T, K> allowedLateness(Duration lateness) {
        Objects.requireNonNull(lateness, "lateness");
        if (lateness.isNegative()) {
            throw new IllegalArgumentException("The allowed lateness is " + lateness + "; it must be zero or positive");
        }
        this.allowedLateness = lateness;
        return this;
    }

    /** Records later than the allowed lateness go to {@code tag} (read with {@code getSideOutput(tag)}) instead of being dropped. */
    public WindowedStream<T, K> sideOutputLateData(OutputTag<T> tag) {
        this.lateTag = Objects.requireNonNull(tag, "tag");
        return this;
    }

    /** Per window, the records reduced into one: emits it when the window fires. */
    public SingleOutputStreamOperator<T> reduce(ReduceFunction<T> fn) {
        SingleOutputStreamOperator<T> out = build("Window reduce",
                WindowContents.reducing(Objects.requireNonNull(fn, "reduce function")));
        out.transformation.serializer = input.transformation.serializer;
        return out;
    }

    /** Per window, an accumulator; emits its result when the window fires. */
    public <A, R> SingleOutputStreamOperator<R> aggregate(AggregateFunction<T, A, R> fn) {
        return build("Window aggregate", WindowContents.aggregating(Objects.requireNonNull(fn, "aggregate function")));
    }

    /** Per window, all its records, with the window: {@code fn} emits what it likes when the window fires. */
    public <R> SingleOutputStreamOperator<R> process(ProcessWindowFunction<T, R, K> fn) {
        return build("Window process", WindowContents.processing(Objects.requireNonNull(fn, "window function")));
    }

    private <A, R> SingleOutputStreamOperator<R> build(String name, WindowContents<K, T, A, R> contents) {
        String fullName = name + " (" + assigner + ")";
        WindowOperator<K, T, A, R> op = new WindowOperator<>(assigner, allowedLateness.toMillis(), lateTag, contents,
                fullName);
        DataStream<R> out = input.transform(fullName, op);
        Transformation.OperatorNode<?, ?> node = (Transformation.OperatorNode<?, ?>) out.transformation;
        node.windowAssigner = assigner;
        node.timestamped = true; // results carry their window's max timestamp
        return new SingleOutputStreamOperator<>(input.env, out.transformation);
    }
}
