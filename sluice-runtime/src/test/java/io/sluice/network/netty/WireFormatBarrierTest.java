package io.sluice.network.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.network.CheckpointBarrier;
import org.junit.jupiter.api.Test;

/** A barrier crosses the TCP data exchange with its kind: a savepoint's stays a savepoint's (a full snapshot). */
class WireFormatBarrierTest {
    @Test
    void checkpointAndSavepointBarriersReadBackAsWritten() {
        for (CheckpointBarrier barrier : new CheckpointBarrier[] {
                new CheckpointBarrier(7, 1_700_000_000_000L), new CheckpointBarrier(8, 1_700_000_000_001L, true)}) {
            ByteBuf frame = WireFormat.event(UnpooledByteBufAllocator.DEFAULT, 3, barrier);
            try {
                frame.skipBytes(WireFormat.HEADER);
                assertThat(WireFormat.readEvent(frame)).isEqualTo(barrier);
            } finally {
                frame.release();
            }
        }
    }
}
