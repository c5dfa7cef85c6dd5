package io.sluice.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.serialization.Serializers;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class BackpressureTest {

    @Test
    void producerBlocksWhenTheChannelIsFullAndNeverQueuesMoreThanItsCapacity() throws Exception {
        LocalShuffleService shuffle = new LocalShuffleService(2, 64);
        List<LocalChannel> out = NetworkTestSupport.channels(shuffle, 1, 0, 1);
        LocalChannel channel = out.get(0);
        RecordWriter<Long> writer = new RecordWriter<>(out, Serializers.LONG, Partitioner.forward(), 64);
        int records = 1_000; // 8 records per 64-byte buffer: 125 buffers, far more than 2 fit
        NetworkTestSupport.Running producer = NetworkTestSupport.start("producer", () -> {
            for (long i = 0; i < records; i++) {
                writer.emit(i);
            }
            writer.close();
        });

        producer.awaitBlocked();
        assertThat(producer.outcome()).isNotDone();
        assertThat(channel.queuedBuffers()).isEqualTo(2);
        assertThat(channel.maxQueuedBuffers()).isEqualTo(2);
        assertThat(writer.buffersSent()).isEqualTo(2);

        InputGate gate = new InputGate("sink", out);
        StreamInputProcessor<Long> processor = new StreamInputProcessor<>(gate, Serializers.LONG, IdleHook.NONE);
        long[] sum = {0};
        while (processor.processNext(v -> sum[0] += v, new NetworkTestSupport.Recorder()) != InputStatus.END_OF_INPUT) {
            assertThat(channel.maxQueuedBuffers()).isLessThanOrEqualTo(2);
        }
        producer.outcome().get(10, TimeUnit.SECONDS);
        assertThat(sum[0]).isEqualTo((long) records * (records - 1) / 2);
        assertThat(channel.maxQueuedBuffers()).isEqualTo(2);
    }
}
