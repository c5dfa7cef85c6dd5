package io.sluice.api.sink;

import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.functions.SinkFunction;
import java.io.PrintStream;

/**
 * Prints each record's {@code toString()} as one line to {@link System#out}.
 *
 * <p>When the sink runs with parallelism above 1, each line starts with the subtask index
 * (0-based, as in {@link RuntimeContext#subtaskIndex()}), for example {@code 2> hello}; with a
 * label, {@code label:2> hello}, or {@code label> hello} at parallelism 1. The stream is looked up
 * in {@link #open}, so redirecting {@code System.out} later does not affect an open sink.
 *
 * <p>Threading: each deployed instance is called only from its task thread. Lines from different
 * subtasks interleave, but each line is printed whole.
 */
public final class PrintSink<T> implements SinkFunction<T>, RichFunction {
    private static final long serialVersionUID = 1L;

    private final String label;
    private transient String prefix;
    private transient PrintStream out;

    /** Prints without a label. */
    public PrintSink() {
        this("");
    }

    /** Prints with {@code label} at the start of each line, to tell several print sinks apart. */
    public PrintSink(String label) {
        if (label == null) {
            throw new IllegalArgumentException("PrintSink: the label must not be null; use new PrintSink() for none");
        }
        this.label = label;
    }

    @Override
    public void open(RuntimeContext context) {
        boolean parallel = context.parallelism() > 1;
        if (parallel) {
            prefix = (label.isEmpty() ? "" : label + ":") + context.subtaskIndex() + "> ";
        } else {
            prefix = label.isEmpty() ? "" : label + "> ";
        }
        out = System.out;
    }

    @Override
    public void invoke(T value) {
        if (out == null) {
            // Not opened (for example called directly in a test): print unprefixed.
            prefix = label.isEmpty() ? "" : label + "> ";
            out = System.out;
        }
        out.println(prefix + value);
    }
}
