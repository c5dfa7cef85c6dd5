package io.sluice.taskexecutor;

import io.sluice.operators.OperatorContext;
import io.sluice.operators.Output;
import io.sluice.operators.StreamOperator;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An operator for tests of a task's parts that records each call it gets, with the thread it came
 * on ({@code "prepareSnapshot 3 on main"}), and forwards records and watermarks. Never serialized:
 * the tests build chains directly.
 */
final class RecordingOperator implements StreamOperator<Object> {
    private final String name;
    private final transient List<String> calls = new CopyOnWriteArrayList<>();
    /** Where every operator of a test also records, as {@code "<name>: <call>"}, for orders across operators. */
    private final transient List<String> journal;
    private transient Output<Object> out;
    private transient OptionalLong restoredCheckpointId;
    private transient volatile Exception prepareSnapshotFailure;
    /** What {@link #snapshotState} returns: the operator's own state; {@code null} (none) unless a test sets it. */
    private transient volatile byte[] operatorState;

    RecordingOperator(String name) {
        this(name, new CopyOnWriteArrayList<>());
    }

    RecordingOperator(String name, List<String> journal) {
        this.name = name;
        this.journal = journal;
    }

    @Override
    public void open(OperatorContext context) {
        out = context.output();
        restoredCheckpointId = context.restoredCheckpointId();
        record("open");
    }

    @Override
    public void processElement(Object value) {
        record("element " + value);
        out.collect(value);
    }

    @Override
    public void processWatermark(long watermark) {
        record("watermark " + watermark);
        out.emitWatermark(watermark);
    }

    @Override
    public void processIdleStatus(boolean idle) {
        out.emitIdleStatus(idle);
    }

    @Override
    public void prepareSnapshot(long checkpointId) throws Exception {
        record("prepareSnapshot " + checkpointId);
        Exception failure = prepareSnapshotFailure;
        prepareSnapshotFailure = null;
        if (failure != null) {
            throw failure;
        }
    }

    /** From now on the operator has its own state, {@code state}, in every snapshot. */
    void snapshotsOperatorState(byte[] state) {
        operatorState = state;
    }

    @Override
    public byte[] snapshotState(long checkpointId) {
        return operatorState;
    }

    /** The next {@link #prepareSnapshot} throws {@code failure} (once). */
    void failNextPrepareSnapshot(Exception failure) {
        prepareSnapshotFailure = failure;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        record("complete " + checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        record("aborted " + checkpointId);
    }

    @Override
    public void finish() {
        record("finish");
    }

    @Override
    public void close() {
        record("close");
    }

    private void record(String call) {
        calls.add(call + " on " + Thread.currentThread().getName());
        journal.add(name + ": " + call);
    }

    /** The calls so far, each {@code "<call> on <thread name>"}. */
    List<String> calls() {
        return List.copyOf(calls);
    }

    /** What the context said at open: the checkpoint restored from, or empty. */
    OptionalLong restoredCheckpointId() {
        return restoredCheckpointId;
    }

    @Override
    public String name() {
        return name;
    }
}
