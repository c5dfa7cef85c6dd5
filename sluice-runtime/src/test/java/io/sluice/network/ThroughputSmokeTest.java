package io.sluice.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.serialization.Serializers;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Pushes millions of longs through one writer -> channel -> processor pair; checks only the result. */
@Timeout(120)
class ThroughputSmokeTest {
    private static final long RECORDS = 5_000_000;

    @Test
    void fiveMillionLongsArriveWithTheRightSum() throws Exception {
        LocalShuffleService shuffle = new LocalShuffleService();
        List<LocalChannel> out = NetworkTestSupport.channels(shuffle, 1, 0, 1);
        RecordWriter<Long> writer = new RecordWriter<>(out, Serializers.LONG, Partitioner.forward(), shuffle.bufferSize());
        StreamInputProcessor<Long> processor =
                new StreamInputProcessor<>(new InputGate("sink", out), Serializers.LONG, IdleHook.NONE);
        long[] sumAndCount = new long[2];
        RecordHandler<Long> handler = v -> {
            sumAndCount[0] += v;
            sumAndCount[1]++;
        };
        NetworkTestSupport.Recorder barriers = new NetworkTestSupport.Recorder();

        long start = System.nanoTime();
        NetworkTestSupport.Running producer = NetworkTestSupport.start("producer", () -> {
            for (long i = 0; i < RECORDS; i++) {
                writer.emit(i);
            }
            writer.close();
        });
        while (processor.processNext(handler, barriers) != InputStatus.END_OF_INPUT) {
            // consume
        }
        long nanos = System.nanoTime() - start;
        producer.outcome().get(10, TimeUnit.SECONDS);

        System.out.printf("ThroughputSmokeTest: %,d records in %,d ms = %,.0f records/s (max queued buffers %d)%n",
                RECORDS, nanos / 1_000_000, RECORDS * 1e9 / nanos, out.get(0).maxQueuedBuffers());
        assertThat(sumAndCount[1]).isEqualTo(RECORDS);
        assertThat(sumAndCount[0]).isEqualTo(RECORDS * (RECORDS - 1) / 2);
    }
}
