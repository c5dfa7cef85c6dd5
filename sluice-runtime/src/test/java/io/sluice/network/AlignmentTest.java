package io.sluice.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.serialization.Serializers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Aligned barrier handling in {@link StreamInputProcessor}; single-threaded, so fully deterministic. */
@Timeout(30)
class AlignmentTest {
    private final LocalShuffleService shuffle = new LocalShuffleService(16, 1024);
    private final NetworkTestSupport.Recorder recorder = new NetworkTestSupport.Recorder();
    private final List<RecordWriter<Long>> writers = new ArrayList<>();
    private final List<Runnable> onIdle = new ArrayList<>();
    private StreamInputProcessor<Long> processor;

    /** Channel c of the gate is fed by writers.get(c). The idle hook runs the next queued action. */
    private void setUp(int channels) {
        List<LocalChannel> gateChannels = new ArrayList<>();
        for (int p = 0; p < channels; p++) {
            List<LocalChannel> out = NetworkTestSupport.channels(shuffle, 1, p, 1);
            gateChannels.addAll(out);
            writers.add(new RecordWriter<>(out, Serializers.LONG, Partitioner.forward(), 1024));
        }
        InputGate gate = new InputGate("aligning", gateChannels);
        processor = new StreamInputProcessor<>(gate, Serializers.LONG, () -> {
            if (onIdle.isEmpty()) {
                throw new AssertionError("The processor would block, but the test has nothing more to send;"
                        + " so far: " + recorder.events);
            }
            onIdle.remove(0).run();
        });
    }

    private void send(int channel, long... records) throws Exception {
        for (long r : records) {
            writers.get(channel).emit(r);
        }
        writers.get(channel).flushAll();
    }

    private void barrier(int channel, long checkpointId) throws InterruptedException {
        writers.get(channel).broadcastEvent(new CheckpointBarrier(checkpointId, 1_000L + checkpointId));
    }

    private void later(ThrowingAction action) {
        onIdle.add(() -> {
            try {
                action.run();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    @FunctionalInterface
    private interface ThrowingAction {
        void run() throws Exception;
    }

    private InputStatus processUntilEnd() throws Exception {
        InputStatus status;
        do {
            status = processor.processNext(recorder, recorder);
        } while (status != InputStatus.END_OF_INPUT);
        return status;
    }

    @Test
    void recordsBehindABarrierWaitWhileOtherChannelsRecordsBeforeTheirBarrierFlow() throws Exception {
        setUp(2);
        barrier(0, 1);
        send(0, 100, 101);
        send(1, 1, 2);
        // Only when the processor has run dry does channel 1's barrier arrive.
        later(() -> {
            assertThat(recorder.events).as("channel 0 is blocked behind its barrier")
                    .containsExactly("record 1", "record 2");
            assertThat(processor.aligningCheckpointId()).isEqualTo(1);
            barrier(1, 1);
            send(1, 3);
            writers.get(0).close();
            writers.get(1).close();
        });

        processUntilEnd();

        assertThat(recorder.events.subList(0, 3)).containsExactly("record 1", "record 2", "aligned 1");
        assertThat(recorder.events.subList(3, recorder.events.size()))
                .containsExactlyInAnyOrder("record 100", "record 101", "record 3");
        assertThat(recorder.events).containsSubsequence("record 100", "record 101");
        assertThat(recorder.events).filteredOn(e -> e.startsWith("aligned")).hasSize(1);
    }

    @Test
    void aNewerBarrierAbortsTheOlderAlignmentAndLateBarriersOfItAreIgnored() throws Exception {
        setUp(3);
        barrier(0, 1);
        send(0, 10);
        barrier(0, 2);
        later(() -> barrier(1, 2));
        later(() -> {
            assertThat(recorder.events).containsExactly("aborted 1", "record 10");
            barrier(2, 1); // late barrier of the aborted checkpoint: ignored, channel 2 keeps flowing
            send(2, 20);
        });
        later(() -> barrier(2, 2));
        later(() -> {
            for (RecordWriter<Long> w : writers) {
                w.close();
            }
        });

        processUntilEnd();

        assertThat(recorder.events).containsExactly("aborted 1", "record 10", "record 20", "aligned 2");
    }

    @Test
    void endOfPartitionOfTheLastMissingChannelCompletesTheAlignment() throws Exception {
        setUp(2);
        barrier(0, 7);
        send(0, 5);
        send(1, 1);
        writers.get(1).close();
        later(() -> writers.get(0).close());

        assertThat(processor.processNext(recorder, recorder)).isEqualTo(InputStatus.MORE_AVAILABLE); // barrier 7
        assertThat(processor.processNext(recorder, recorder)).isEqualTo(InputStatus.MORE_AVAILABLE); // record 1
        assertThat(processor.processNext(recorder, recorder)).isEqualTo(InputStatus.MORE_AVAILABLE); // end of 1
        assertThat(recorder.events).containsExactly("record 1", "aligned 7");
        assertThat(processUntilEnd()).isEqualTo(InputStatus.END_OF_INPUT);
        assertThat(recorder.events).containsExactly("record 1", "aligned 7", "record 5");
        assertThat(processor.processNext(recorder, recorder)).isEqualTo(InputStatus.END_OF_INPUT);
    }

    @Test
    void aSingleChannelAlignsAtOnce() throws Exception {
        setUp(1);
        send(0, 1);
        barrier(0, 3);
        send(0, 2);
        writers.get(0).close();

        processUntilEnd();

        assertThat(recorder.events).containsExactly("record 1", "aligned 3", "record 2");
    }
}
