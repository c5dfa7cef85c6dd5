package io.sluice.jobmaster;

import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.slots.SlotPool;
import io.sluice.restart.RestartStrategy;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.util.Clock;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * What a job master runs on: its (already recovered) checkpoint store and id counter, checkpoint
 * storage, the slots it was given (slot i on {@code slots.get(i)}, one subtask of every vertex per
 * slot), the shuffle, an I/O executor, a clock, the restart strategy, and the leadership check
 * that fences its writes.
 *
 * <p>{@code slotPool}: a dynamic pool (cluster mode) from which the job master takes its slots for
 * every deployment itself, waiting while there are too few, and whose lost task executors fail the
 * job over; {@code slots} is then ignored. {@code null}: the fixed {@code slots} (a local cluster).
 */
public record JobMasterServices(CheckpointStorage checkpointStorage, CompletedCheckpointStore checkpointStore,
                                CheckpointIdCounter checkpointIdCounter, ShuffleMaster shuffleMaster,
                                List<TaskExecutorGateway> slots, Executor ioExecutor, Clock clock,
                                RestartStrategy restartStrategy, BooleanSupplier writesAllowed, SlotPool slotPool) {

    /** Services with fixed slots (no dynamic pool). */
    public JobMasterServices(CheckpointStorage checkpointStorage, CompletedCheckpointStore checkpointStore,
                             CheckpointIdCounter checkpointIdCounter, ShuffleMaster shuffleMaster,
                             List<TaskExecutorGateway> slots, Executor ioExecutor, Clock clock,
                             RestartStrategy restartStrategy, BooleanSupplier writesAllowed) {
        this(checkpointStorage, checkpointStore, checkpointIdCounter, shuffleMaster, slots, ioExecutor, clock,
                restartStrategy, writesAllowed, null);
    }
}
