package io.sluice.network;

/** Told about checkpoints by a {@link StreamInputProcessor}, on the task thread. */
public interface BarrierHandler {
    /** Every channel that has not ended delivered this barrier: snapshot state and forward it now. */
    void onAligned(CheckpointBarrier barrier) throws Exception;

    /** The alignment of {@code checkpointId} was abandoned because a newer checkpoint's barrier arrived. */
    void onAborted(long checkpointId) throws Exception;
}
