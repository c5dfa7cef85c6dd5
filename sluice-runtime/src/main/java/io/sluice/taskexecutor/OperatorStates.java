package io.sluice.taskexecutor;

import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.operators.OperatorStateRestore;
import io.sluice.operators.StreamOperator;
import io.sluice.protocol.TaskRestore;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The operators' own state of one task's chain in a checkpoint (what {@link StreamOperator#snapshotState}
 * returns, such as a two-phase-commit sink's committables), as one blob per subtask.
 *
 * <p>Format, version 1: {@code int magic "SLOS", int version, int count, count × (int operator index in the
 * chain, bytes state)}; only operators that returned state are listed. Stateless; task thread.
 */
final class OperatorStates {
    static final int MAGIC = 0x534C4F53; // "SLOS"
    static final int VERSION = 1;

    private OperatorStates() {}

    /** The chain's operator state for {@code checkpointId}, or {@code null} if no operator has any. */
    static byte[] snapshot(List<StreamOperator<?>> operators, long checkpointId) throws Exception {
        DataOutputBuffer out = null;
        int count = 0;
        for (int i = 0; i < operators.size(); i++) {
            byte[] state = operators.get(i).snapshotState(checkpointId);
            if (state == null) {
                continue;
            }
            if (out == null) {
                out = new DataOutputBuffer(64 + state.length);
                out.writeInt(MAGIC);
                out.writeInt(VERSION);
                out.writeInt(0); // count, patched below
            }
            out.writeInt(i);
            out.writeBytes(state);
            count++;
        }
        if (out == null) {
            return null;
        }
        byte[] bytes = out.toByteArray();
        java.nio.ByteBuffer.wrap(bytes).putInt(8, count);
        return bytes;
    }

    /**
     * What each operator of the chain restores (by index; {@code null} for none), from the restore's
     * operator-state handles, whose bytes {@code read} fetches (inline, or from the state file).
     */
    static OperatorStateRestore[] restoresFor(TaskRestore restore, int operatorCount,
                                              Function<TaskStateHandle, byte[]> read, String taskName) {
        OperatorStateRestore[] out = new OperatorStateRestore[operatorCount];
        if (restore == null || restore.operatorStateHandles().isEmpty()) {
            return out;
        }
        List<List<byte[]>> perOperator = new ArrayList<>();
        for (int i = 0; i < operatorCount; i++) {
            perOperator.add(new ArrayList<>());
        }
        for (TaskStateHandle h : restore.operatorStateHandles()) {
            DataInputBuffer in = new DataInputBuffer(read.apply(h));
            int magic = in.readInt();
            int version = in.readInt();
            if (magic != MAGIC || version != VERSION) {
                throw new IllegalStateException(taskName + ": the operator state of subtask " + h.subtaskIndex()
                        + " in checkpoint " + restore.checkpointId() + " has format " + Integer.toHexString(magic) + "/"
                        + version + "; this build reads " + Integer.toHexString(MAGIC) + "/" + VERSION);
            }
            int count = in.readInt();
            for (int k = 0; k < count; k++) {
                int index = in.readInt();
                byte[] state = in.readBytes();
                if (index < 0 || index >= operatorCount) {
                    throw new IllegalStateException(taskName + ": checkpoint " + restore.checkpointId()
                            + " holds operator state for operator " + index + " of the chain, which has "
                            + operatorCount + " operators: the job's chain changed since the checkpoint was taken");
                }
                perOperator.get(index).add(state);
            }
        }
        for (int i = 0; i < operatorCount; i++) {
            if (!perOperator.get(i).isEmpty()) {
                out[i] = new OperatorStateRestore(restore.checkpointId(), perOperator.get(i));
            }
        }
        return out;
    }
}
