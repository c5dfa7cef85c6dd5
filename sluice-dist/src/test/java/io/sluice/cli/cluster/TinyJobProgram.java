package io.sluice.cli.cluster;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.graph.JobGraph;

/**
 * The smallest job a many-jobs test runs, as a program: {@code main(name, records, output)} builds it
 * and calls {@code execute}. {@code records} 0: one number a second into a discarding sink until
 * cancelled; else the numbers {@code 0..records-1} as lines into part files under {@code output}.
 * Parallelism 1, no checkpoints. {@link ThousandJobsITCase} puts this class into a jar (run over
 * REST, loaded child-first in the job's own class loader) and also builds the same job for the Java API.
 */
public final class TinyJobProgram {
    private TinyJobProgram() {}

    public static void main(String[] args) throws Exception {
        environment(Long.parseLong(args[1]), args[2]).execute(args[0]);
    }

    /** The job as a graph, for the Java API. */
    static JobGraph graph(String name, long records, String output) {
        return environment(records, output).buildJobGraph(name);
    }

    private static StreamExecutionEnvironment environment(long records, String output) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1);
        if (records == 0) {
            env.fromSource(SequenceSource.unbounded(0).withRate(1), "numbers").addSink(new DiscardingSink<>(), "discard");
        } else {
            env.fromSource(SequenceSource.bounded(0, records - 1), "numbers").writeAsTextAtLeastOnce(output);
        }
        return env;
    }
}
