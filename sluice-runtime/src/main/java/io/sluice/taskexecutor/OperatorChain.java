package io.sluice.taskexecutor;

import io.sluice.operators.Output;
import io.sluice.operators.RecordTimestamp;
import io.sluice.operators.StreamOperator;
import io.sluice.operators.windowing.WindowOperator;
import io.sluice.state.KeyedStateBackend;
import io.sluice.util.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operators of a task, wired tail to head, and the outputs at the end of the chain: each
 * operator emits into the next by a direct call ({@link ChainedOutput}); the last writes to the
 * record writers ({@link TaskOutputs}). The head is where the task's input or source pushes records.
 *
 * <p>The chain is also how a task's checkpoints reach its operators (the extension point of
 * operators that take part in checkpoints, see {@link StreamOperator}): {@link #prepareSnapshot} at
 * the barrier, {@link #notifyCheckpointComplete} and {@link #notifyCheckpointAborted} from the
 * mailbox, and the restored checkpoint's id in each operator's {@link TaskOperatorContext} at
 * {@link #open}. Only the head of a keyed task sees the keyed state backend.
 *
 * <p>Threads: task thread only (opened while {@code DEPLOYING}), except the metric reads
 * ({@link #lateRecordsDropped}, and those of {@link #outputs()}), which other threads make racily.
 */
final class OperatorChain {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorChain.class);
    /**
     * The longest an idle task sleeps before it looks at processing time again although no operator asked it
     * to: a safety net (every wake-up it needs comes as data, mail, an interrupt or an operator's time).
     */
    static final long MAX_IDLE_WAIT_NANOS = 1_000_000_000L;
    /** How often an operator that does not say when it needs processing time is given it while the task idles. */
    static final long UNTOLD_OPERATOR_PERIOD_MILLIS = 10;

    private final TaskInfo info;
    private final List<StreamOperator<?>> operators;
    /** The output of each operator: the next one's input, or the chain's end for the last. */
    private final List<Output<?>> operatorOutputs;
    private final TaskOutputs outputs;
    private final Output<Object> head;
    private final Clock clock;
    /**
     * Per operator: whether it says when it next has processing-time work ({@link
     * StreamOperator#nextProcessingTimeMillis}), or uses no processing time at all. One that overrides
     * {@code advanceProcessingTime} but not that is asked every {@link #UNTOLD_OPERATOR_PERIOD_MILLIS} ms.
     */
    private final boolean[] toldWhen;

    private OperatorChain(TaskInfo info, List<StreamOperator<?>> operators, List<Output<?>> operatorOutputs,
                          TaskOutputs outputs, Output<Object> head, Clock clock) {
        this.info = info;
        this.operators = operators;
        this.toldWhen = new boolean[operators.size()];
        for (int i = 0; i < toldWhen.length; i++) {
            toldWhen[i] = saysWhenItNeedsProcessingTime(operators.get(i));
        }
        this.operatorOutputs = operatorOutputs;
        this.outputs = outputs;
        this.head = head;
        this.clock = clock;
    }

    /** Wires {@code operators} tail to head onto {@code outputs}; {@link #open} opens them. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static OperatorChain wire(TaskInfo info, List<StreamOperator<?>> operators, TaskOutputs outputs, Clock clock) {
        List<StreamOperator<?>> chain = List.copyOf(operators);
        Output<?> out = outputs.chainEnd();
        List<Output<?>> operatorOutputs = new ArrayList<>();
        for (int i = chain.size() - 1; i >= 0; i--) {
            operatorOutputs.add(0, out);
            out = new ChainedOutput<>((StreamOperator) chain.get(i));
        }
        return new OperatorChain(info, chain, List.copyOf(operatorOutputs), outputs, (Output<Object>) out, clock);
    }

    /**
     * Opens the operators, the tail first. An operator that fails to open fails the task; every
     * operator is still closed by {@link #closeQuietly}.
     *
     * @param backend              the keyed state backend, given to the head operator; {@code null} without keyed state
     * @param restoredCheckpointId the checkpoint the task restores from, or empty
     */
    void open(KeyedStateBackend backend, RecordTimestamp recordTimestamp, OptionalLong restoredCheckpointId)
            throws Exception {
        open(backend, recordTimestamp, restoredCheckpointId, new io.sluice.operators.OperatorStateRestore[operators.size()],
                null);
    }

    /**
     * As {@link #open(KeyedStateBackend, RecordTimestamp, OptionalLong)}, with each operator's own restored state
     * ({@code operatorStates[i]}, or null) and the job the task belongs to (its id and checkpoint settings for
     * the operators' runtime context; {@code null} in tests).
     */
    void open(KeyedStateBackend backend, RecordTimestamp recordTimestamp, OptionalLong restoredCheckpointId,
              io.sluice.operators.OperatorStateRestore[] operatorStates, io.sluice.graph.JobGraph job) throws Exception {
        open(backend, recordTimestamp, restoredCheckpointId, operatorStates, job, null);
    }

    /** As above; {@code restoredFrom}: another job's checkpoint the task restored from, or null. */
    void open(KeyedStateBackend backend, RecordTimestamp recordTimestamp, OptionalLong restoredCheckpointId,
              io.sluice.operators.OperatorStateRestore[] operatorStates, io.sluice.graph.JobGraph job,
              io.sluice.api.functions.RestoredCheckpoint restoredFrom) throws Exception {
        for (int i = operators.size() - 1; i >= 0; i--) {
            StreamOperator<?> op = operators.get(i);
            KeyedStateBackend opBackend = i == 0 ? backend : null;
            TaskRuntimeContext runtimeContext = new TaskRuntimeContext(info.taskName(), info.subtaskIndex(),
                    info.parallelism(), info.maxParallelism(), info.attemptNumber(), opBackend, op.name());
            if (job != null) {
                runtimeContext.withJob(job);
            }
            runtimeContext.withRestoredFrom(restoredFrom);
            op.open(new TaskOperatorContext(runtimeContext, operatorOutputs.get(i), opBackend, recordTimestamp, clock,
                    restoredCheckpointId, operatorStates[i]));
        }
    }

    /** The number of operators in the chain. */
    int size() {
        return operators.size();
    }

    /** The operators' own state for {@code checkpointId} (after {@link #prepareSnapshot}), or null if none has any. */
    byte[] snapshotState(long checkpointId) throws Exception {
        return OperatorStates.snapshot(operators, checkpointId);
    }

    /** The commits of the chain's two-phase-commit sinks, or null if it has none. Any thread (racy). */
    io.sluice.operators.CommitStats commitStats() {
        io.sluice.operators.CommitStats commits = null;
        for (StreamOperator<?> op : operators) {
            if (op instanceof io.sluice.operators.TwoPhaseCommitSinkOperator<?, ?> sink) {
                commits = commits == null ? sink.commitStats() : commits.plus(sink.commitStats());
            }
        }
        return commits;
    }

    /** The end of the chain (the task's writers): where a source's side outputs go, past the chained operators. */
    @SuppressWarnings("unchecked")
    Output<Object> end() {
        return (Output<Object>) outputs.chainEnd();
    }

    /** Where the task's input or source pushes records, watermarks and idleness. */
    Output<Object> head() {
        return head;
    }

    TaskOutputs outputs() {
        return outputs;
    }

    /**
     * How long from now until an operator of the chain has processing-time work (a timer, a periodic
     * watermark, an idleness timeout): 0 if one has some now, and at most {@link #MAX_IDLE_WAIT_NANOS}, a
     * safety net only. A task with no input and no mail sleeps this long. Task thread.
     */
    long nanosUntilProcessingTimeWork() {
        long now = clock.currentTimeMillis();
        long earliest = Long.MAX_VALUE;
        for (int i = 0; i < operators.size(); i++) {
            long next = toldWhen[i] ? operators.get(i).nextProcessingTimeMillis(now) : now + UNTOLD_OPERATOR_PERIOD_MILLIS;
            earliest = Math.min(earliest, next);
        }
        if (earliest <= now) {
            return 0;
        }
        long millis = earliest - now;
        return millis >= MAX_IDLE_WAIT_NANOS / 1_000_000L ? MAX_IDLE_WAIT_NANOS : millis * 1_000_000L;
    }

    /** Whether {@code op} uses no processing time, or says when it next needs it. */
    private static boolean saysWhenItNeedsProcessingTime(StreamOperator<?> op) {
        try {
            Class<?> type = op.getClass();
            boolean advances = type.getMethod("advanceProcessingTime", long.class).getDeclaringClass() != StreamOperator.class;
            boolean tells = type.getMethod("nextProcessingTimeMillis", long.class).getDeclaringClass() != StreamOperator.class;
            return !advances || tells;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("StreamOperator lost a method: " + e.getMessage(), e);
        }
    }

    /** Tells every operator the processing time (timers, periodic watermarks, idleness). */
    void advanceProcessingTime() throws Exception {
        long now = clock.currentTimeMillis();
        for (StreamOperator<?> op : operators) {
            op.advanceProcessingTime(now);
        }
    }

    /** The barrier of {@code checkpointId} reached the task: each operator, head first, prepares its snapshot. */
    void prepareSnapshot(long checkpointId) throws Exception {
        for (StreamOperator<?> op : operators) {
            op.prepareSnapshot(checkpointId);
        }
    }

    void notifyCheckpointComplete(long checkpointId) throws Exception {
        for (StreamOperator<?> op : operators) {
            op.notifyCheckpointComplete(checkpointId);
        }
    }

    void notifyCheckpointAborted(long checkpointId) throws Exception {
        for (StreamOperator<?> op : operators) {
            op.notifyCheckpointAborted(checkpointId);
        }
    }

    /** The input ended: each operator, head first, emits what it buffers. */
    void finish() throws Exception {
        for (StreamOperator<?> op : operators) {
            op.finish();
        }
    }

    /** Whether an operator needs a final checkpoint before the task may end (asked after {@link #finish}). */
    boolean needsFinalCheckpoint() {
        for (StreamOperator<?> op : operators) {
            if (op.needsFinalCheckpoint()) {
                return true;
            }
        }
        return false;
    }

    /** The task's final checkpoint completed: each operator, head first, hands its last output over. */
    void finishAfterFinalCheckpoint() throws Exception {
        for (StreamOperator<?> op : operators) {
            op.finishAfterFinalCheckpoint();
        }
    }

    /** Closes every operator, on any ending; a failure to close one is logged and the others still close. */
    void closeQuietly() {
        for (StreamOperator<?> op : operators) {
            try {
                op.close();
            } catch (Throwable t) {
                LOG.debug("Closing operator {} of {} failed", op.name(), info.taskName(), t);
            }
        }
    }

    /** Records the chain's event-time windows dropped as too late. Any thread (racy read). */
    long lateRecordsDropped() {
        long dropped = 0;
        for (StreamOperator<?> op : operators) {
            if (op instanceof WindowOperator<?, ?, ?, ?> window) {
                dropped += window.lateRecordsDropped();
            }
        }
        return dropped;
    }
}
