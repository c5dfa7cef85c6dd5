package io.sluice.api.functions;

import io.sluice.api.windowing.TimeWindow;
import java.io.Serializable;

/**
 * Sees a whole window at once: its key, the window and all its records (kept in state until the
 * window is purged). Called when the window fires, and again for each late record within the
 * allowed lateness. Task thread only.
 */
public abstract class ProcessWindowFunction<IN, OUT, K> implements RichFunction, Serializable {

    public abstract void process(K key, Context context, Iterable<IN> elements, Collector<OUT> out) throws Exception;

    /** What the function can see when a window fires. */
    public interface Context {
        TimeWindow window();

        long currentWatermark();

        long currentProcessingTime();

        <X> void output(OutputTag<X> tag, X value);
    }
}
