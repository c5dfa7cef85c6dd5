package io.sluice.operators.windowing;

import io.sluice.api.functions.AggregateFunction;
import io.sluice.api.functions.Collector;
import io.sluice.api.functions.ProcessWindowFunction;
import io.sluice.api.functions.ReduceFunction;
import io.sluice.api.windowing.TimeWindow;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * What a window keeps in state and how it turns into a result: an accumulator ({@code aggregate}),
 * the running reduction ({@code reduce}), or every record ({@code process}). Task thread only.
 */
public interface WindowContents<K, IN, ACC, OUT> extends Serializable {
    /** Adds {@code value} to {@code acc}, which is {@code null} for a new window. */
    ACC add(IN value, ACC acc);

    /** Combines the contents of two windows that merge (sessions). */
    ACC merge(ACC a, ACC b);

    void emit(K key, TimeWindow window, ACC acc, FireContext context, Collector<OUT> out) throws Exception;

    /** The user function, for its lifecycle; or {@code null}. */
    Object function();

    /** What the window operator offers while a window fires. */
    interface FireContext extends ProcessWindowFunction.Context {
    }

    static <K, IN, ACC, OUT> WindowContents<K, IN, ACC, OUT> aggregating(AggregateFunction<IN, ACC, OUT> fn) {
        return new WindowContents<>() {
            @Override
            public ACC add(IN value, ACC acc) {
                return fn.add(value, acc == null ? fn.createAccumulator() : acc);
            }

            @Override
            public ACC merge(ACC a, ACC b) {
                return fn.merge(a, b);
            }

            @Override
            public void emit(K key, TimeWindow window, ACC acc, FireContext context, Collector<OUT> out) {
                out.collect(fn.getResult(acc));
            }

            @Override
            public Object function() {
                return fn;
            }
        };
    }

    static <K, T> WindowContents<K, T, T, T> reducing(ReduceFunction<T> fn) {
        return new WindowContents<>() {
            @Override
            public T add(T value, T acc) {
                try {
                    return acc == null ? value : fn.reduce(acc, value);
                } catch (Exception e) {
                    throw new IllegalStateException("The window's reduce function failed: " + e, e);
                }
            }

            @Override
            public T merge(T a, T b) {
                return add(b, a);
            }

            @Override
            public void emit(K key, TimeWindow window, T acc, FireContext context, Collector<T> out) {
                out.collect(acc);
            }

            @Override
            public Object function() {
                return fn;
            }
        };
    }

    static <K, IN, OUT> WindowContents<K, IN, List<IN>, OUT> processing(ProcessWindowFunction<IN, OUT, K> fn) {
        return new WindowContents<>() {
            @Override
            public List<IN> add(IN value, List<IN> acc) {
                // A list restored from a checkpoint may be of another class: keep an ArrayList of our own.
                List<IN> list = acc instanceof ArrayList<IN> own ? own : acc == null ? new ArrayList<>() : new ArrayList<>(acc);
                list.add(value);
                return list;
            }

            @Override
            public List<IN> merge(List<IN> a, List<IN> b) {
                List<IN> list = new ArrayList<>(a);
                list.addAll(b);
                return list;
            }

            @Override
            public void emit(K key, TimeWindow window, List<IN> acc, FireContext context, Collector<OUT> out)
                    throws Exception {
                fn.process(key, context, java.util.Collections.unmodifiableList(acc), out);
            }

            @Override
            public Object function() {
                return fn;
            }
        };
    }
}
