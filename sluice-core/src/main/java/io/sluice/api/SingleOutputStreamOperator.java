package io.sluice.api;

import io.sluice.api.functions.OutputTag;
import java.util.Objects;

/**
 * The stream of an operator that may also have side outputs (a process function's): its main
 * output, and {@link #getSideOutput} for each {@link OutputTag} it emits to. Built on the thread that
 * builds the job; not thread-safe.
 */
public final class SingleOutputStreamOperator<T> extends DataStream<T> {
    SingleOutputStreamOperator(StreamExecutionEnvironment env, Transformation<T> transformation) {
        super(env, transformation);
    }

    /**
     * The records the operator emits to {@code tag}, with their timestamps. Records emitted to a tag
     * no one reads are dropped.
     */
    public <X> DataStream<X> getSideOutput(OutputTag<X> tag) {
        Objects.requireNonNull(tag, "tag");
        return new DataStream<>(env, new Transformation.SideOutputNode<>(env.nextId(), transformation, tag));
    }
}
