package io.sluice.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.serialization.Serializers;
import io.sluice.operators.RecordTimestamp;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Watermarks, idleness and timestamps through channels into a {@link StreamInputProcessor};
 * single-threaded (every send happens before the processing), so fully deterministic.
 */
@Timeout(30)
class WatermarkPropagationTest {
    private final LocalShuffleService shuffle = new LocalShuffleService(64, 1024);
    private final List<RecordWriter<Long>> writers = new ArrayList<>();
    private final RecordTimestamp writeTimestamp = new RecordTimestamp();
    private final RecordTimestamp readTimestamp = new RecordTimestamp();
    private final List<String> events = new ArrayList<>();
    private StreamInputProcessor<Long> processor;
    private final java.util.Set<Integer> closed = new java.util.HashSet<>();

    private void end(int channel) throws InterruptedException {
        writers.get(channel).close();
        closed.add(channel);
    }

    private void setUp(int channels, boolean timestamped) {
        List<LocalChannel> gateChannels = new ArrayList<>();
        for (int p = 0; p < channels; p++) {
            List<LocalChannel> out = NetworkTestSupport.channels(shuffle, 1, p, 1);
            gateChannels.addAll(out);
            writers.add(new RecordWriter<>(out, Serializers.LONG, Partitioner.forward(), 1024,
                    timestamped ? writeTimestamp : null));
        }
        boolean[] flags = new boolean[channels];
        java.util.Arrays.fill(flags, timestamped);
        processor = new StreamInputProcessor<>(new InputGate("wm", gateChannels),
                java.util.Collections.nCopies(channels, Serializers.LONG), () -> { }, flags, readTimestamp, () -> 1_000_000L);
    }

    private void record(int channel, long value, long timestamp) throws Exception {
        writeTimestamp.set(timestamp);
        writers.get(channel).emit(value);
    }

    private void watermark(int channel, long wm) throws InterruptedException {
        writers.get(channel).broadcastEvent(new Watermark(wm));
    }

    private void idle(int channel, boolean idle) throws InterruptedException {
        writers.get(channel).broadcastEvent(idle ? IdleStatus.IDLE : IdleStatus.ACTIVE);
    }

    /** Processes everything sent so far. */
    private List<String> drain() throws Exception {
        for (int c = 0; c < writers.size(); c++) {
            if (!closed.contains(c)) {
                writers.get(c).flushAll();
            }
        }
        BarrierHandler barriers = new BarrierHandler() {
            @Override
            public void onAligned(CheckpointBarrier barrier) {
                events.add("aligned " + barrier.checkpointId());
            }

            @Override
            public void onAborted(long checkpointId) {
                events.add("aborted " + checkpointId);
            }
        };
        InputStatus status;
        do {
            status = processor.processNext(r -> events.add("record " + r + "@" + readTimestamp.get()), barriers,
                    new WatermarkHandler() {
                        @Override
                        public void onWatermark(long watermark) {
                            events.add("wm " + (watermark == Long.MAX_VALUE ? "MAX" : watermark));
                        }

                        @Override
                        public void onIdleStatus(boolean idle) {
                            events.add(idle ? "idle" : "active");
                        }
                    });
        } while (status == InputStatus.MORE_AVAILABLE);
        List<String> copy = List.copyOf(events);
        events.clear();
        return copy;
    }

    @Test
    void timestampsTravelWithTheirRecords() throws Exception {
        setUp(1, true);
        record(0, 7, 1_000);
        record(0, 8, -5);
        assertThat(drain()).containsExactly("record 7@1000", "record 8@-5");
    }

    @Test
    void aStreamWithoutTimestampsShipsOnlyTheRecords() throws Exception {
        setUp(1, false);
        writeTimestamp.set(1_000);
        writers.get(0).emit(7L);
        writers.get(0).flushAll();
        // 8 bytes per long record: no timestamp in the channel.
        assertThat(writers.get(0).buffersSent()).isEqualTo(1);
        assertThat(drain()).containsExactly("record 7@" + Long.MIN_VALUE);
    }

    @Test
    void theInputWatermarkIsTheMinimumOverTheChannelsAndOnlyAdvances() throws Exception {
        setUp(3, true);
        watermark(0, 10);
        watermark(1, 5);
        assertThat(drain()).as("channel 2 has no watermark yet").isEmpty();
        watermark(2, 7);
        assertThat(drain()).containsExactly("wm 5");
        watermark(1, 20);
        assertThat(drain()).containsExactly("wm 7");
        watermark(2, 30);
        assertThat(drain()).containsExactly("wm 10");
        watermark(0, 9); // behind its own last watermark: ignored
        assertThat(drain()).isEmpty();
        assertThat(processor.currentWatermark()).isEqualTo(10);
    }

    @Test
    void anIdleChannelStopsHoldingTheWatermarkBackAndResumesOnceCaughtUp() throws Exception {
        setUp(2, true);
        watermark(0, 100);
        watermark(1, 10);
        assertThat(drain()).containsExactly("wm 10");
        idle(1, true);
        assertThat(drain()).as("channel 1 idle: channel 0 alone decides").containsExactly("wm 100");
        watermark(0, 150);
        assertThat(drain()).containsExactly("wm 150");
        // Channel 1 resumes behind the input's watermark: it does not pull it back...
        idle(1, false);
        watermark(1, 120);
        watermark(0, 300);
        assertThat(drain()).as("channel 1 (120) is not counted until it catches up with 150").containsExactly("wm 300");
        // ...and counts again once it caught up.
        watermark(1, 310);
        watermark(0, 400);
        watermark(1, 350);
        assertThat(drain()).containsExactly("wm 310", "wm 350");
    }

    @Test
    void allChannelsIdleMakeTheInputIdleAndARecordOrWatermarkMakesItActiveAgain() throws Exception {
        setUp(2, true);
        idle(0, true);
        assertThat(drain()).isEmpty();
        idle(1, true);
        assertThat(drain()).containsExactly("idle");
        watermark(1, 40); // a watermark implies activity
        assertThat(drain()).containsExactly("active", "wm 40");
    }

    @Test
    void anEndedChannelNoLongerCountsAndTheFinalWatermarkIsMax() throws Exception {
        setUp(2, true);
        watermark(0, 10);
        watermark(1, 20);
        watermark(0, Long.MAX_VALUE);
        end(0);
        assertThat(drain()).containsExactly("wm 10", "wm 20");
        watermark(1, 25);
        watermark(1, Long.MAX_VALUE);
        end(1);
        assertThat(drain()).containsExactly("wm 25", "wm MAX");
    }

    @Test
    void aChannelBlockedForAlignmentHoldsItsWatermarksBehindItsRecords() throws Exception {
        setUp(2, true);
        watermark(0, 1);
        watermark(1, 1);
        writers.get(0).broadcastEvent(new CheckpointBarrier(1, 1));
        record(0, 100, 50);
        watermark(0, 60);
        record(1, 1, 5);
        watermark(1, 70);
        writers.get(1).broadcastEvent(new CheckpointBarrier(1, 1));
        List<String> seen = drain();
        // Channel 0's record and watermark after its barrier come after the alignment, record first;
        // the input watermark cannot pass 60 before channel 0's watermark arrived.
        assertThat(seen).containsExactly("wm 1", "record 1@5", "aligned 1", "record 100@50", "wm 60");
    }
}
