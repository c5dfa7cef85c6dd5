package io.sluice.compare.flink;

import java.util.concurrent.locks.LockSupport;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.DiscardingSink;
import org.apache.flink.streaming.api.functions.source.RichParallelSourceFunction;

/**
 * The keyed counting job on Flink 1.13-1.20 (the 2.x version of this class is in
 * {@code flink-harness/src/flink2}): a sequence source ({@code fromSequence}, or a paced
 * SourceFunction in the recovery scenarios),
 * {@code keyBy(v % keys)} ({@link ModKey}), {@link CountPerKey}, and a discarding sink chained to
 * it. Parallelism 2, heap state backend, fixed-delay restart with no delay, object reuse.
 */
public final class CountingJob {
    private CountingJob() {}

    /** What the job is, for the result file's header. */
    static final String DESCRIPTION = "throughput and checkpoint duration: fromSequence Source-API source; recovery"
            + " scenarios: paced parallel SourceFunction sequence source; keyBy(v % keys), map counting per key in"
            + " ValueState<Long> emitting the count, chained DiscardingSink (addSink); parallelism 2;"
            + " HashMapStateBackend; fixed-delay restart 0 ms; tolerable checkpoint failures unlimited; object reuse";

    /**
     * @param keys               distinct keys
     * @param rate               records/s over all subtasks; 0 for as fast as possible (the throughput job)
     * @param checkpointInterval ms between checkpoints
     * @param checkpointDir      where checkpoint data goes (a {@code slowfs:///} or {@code file:///} URI)
     */
    public static JobGraph build(int keys, double rate, long checkpointInterval, String checkpointDir) {
        return build(keys, rate, checkpointInterval, checkpointDir, 0, null);
    }

    /**
     * The job as {@link #build(int, double, long, String)}; with {@code records > 0} (and no rate)
     * bounded to the records {@code 0 .. records - 1}, and with a {@code checkSinkId} its sink counts
     * into those {@link CheckCounters} instead of discarding (the bounded check run).
     */
    public static JobGraph build(int keys, double rate, long checkpointInterval, String checkpointDir, long records,
                                 String checkSinkId) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
        env.setParallelism(2);
        env.enableCheckpointing(checkpointInterval);
        env.getCheckpointConfig().setCheckpointStorage(checkpointDir);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(Integer.MAX_VALUE);
        env.setStateBackend(new HashMapStateBackend());
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(Integer.MAX_VALUE, 0));
        // No defensive copy of every record between the chained map and sink: the functions keep no
        // reference to a record they passed on, which is what object reuse requires.
        env.getConfig().enableObjectReuse();
        // Unpaced: Flink's own Source-API sequence source, which runs in the task's mailbox thread; a
        // SourceFunction runs in a thread of its own and hands every record over under the checkpoint
        // lock (about a third slower here, see docs/benchmarks.md). Paced: the SourceFunction below,
        // with which the recovery scenarios were measured.
        DataStream<Long> numbers = rate == 0
                ? env.fromSequence(0, records > 0 ? records - 1 : Long.MAX_VALUE).name("numbers")
                : env.addSource(new SequenceSource(rate)).name("numbers").returns(Types.LONG);
        numbers.keyBy(new ModKey(keys))
                .map(new CountPerKey(rate > 0)).name("count per key").returns(Types.LONG)
                .addSink(checkSinkId == null ? new DiscardingSink<>() : new CheckSink(checkSinkId)).name("results");
        return env.getStreamGraph().getJobGraph();
    }

    /**
     * Emits i, i + p, i + 2p, ... in subtask i of p, 64 at a time under the checkpoint lock,
     * optionally paced to a rate; its position is operator state, so a restore continues where the
     * checkpoint was taken.
     */
    static final class SequenceSource extends RichParallelSourceFunction<Long> implements CheckpointedFunction {
        private final double rate;
        private transient ListState<Long> positionState;
        private transient long next;
        private volatile boolean running = true;

        SequenceSource(double rate) {
            this.rate = rate;
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            positionState = context.getOperatorStateStore().getListState(
                    new ListStateDescriptor<>("position", Types.LONG));
            next = -1;
            for (Long p : positionState.get()) {
                next = p;
            }
        }

        @Override
        public void run(SourceContext<Long> ctx) {
            int subtask = getRuntimeContext().getIndexOfThisSubtask();
            int parallelism = getRuntimeContext().getNumberOfParallelSubtasks();
            if (next < 0) {
                next = subtask;
            }
            double perSubtask = rate / parallelism;
            long start = System.nanoTime();
            long emitted = 0;
            while (running) {
                if (perSubtask > 0) {
                    long due = start + (long) (emitted * 1e9 / perSubtask);
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait); // pacing is the workload, not a wait for a condition
                        continue;
                    }
                }
                synchronized (ctx.getCheckpointLock()) {
                    for (int i = 0; i < 64; i++) {
                        ctx.collect(next);
                        next += parallelism;
                    }
                }
                emitted += 64;
            }
        }

        @Override
        public void cancel() {
            running = false;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            positionState.clear();
            positionState.add(next);
        }
    }
}
