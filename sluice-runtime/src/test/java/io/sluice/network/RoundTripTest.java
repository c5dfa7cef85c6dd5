package io.sluice.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.tuple.Tuple2;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Records go writer -> channel -> gate -> processor intact, complete and in order per producer. */
@Timeout(60)
class RoundTripTest {
    private static final int PRODUCERS = 3;
    private static final int RECORDS = 20_000;

    @Test
    void longsArriveCompleteAndInOrderPerProducer() throws Exception {
        roundTrip(Serializers.LONG, p -> i -> (long) p * 1_000_000 + i, 128);
    }

    @Test
    void stringsIncludingOnesLargerThanABufferArriveIntact() throws Exception {
        // Every 1000th string is longer than the buffer, so it grows the array instead of fitting.
        roundTrip(Serializers.STRING, p -> i -> p + ":" + i + (i % 1000 == 0 ? "x".repeat(300) : "é"), 128);
    }

    @Test
    void dynamicTuplesArriveIntact() throws Exception {
        TypeSerializer<Tuple2<Object, Object>> dynamic = Serializers.dynamic();
        roundTrip(dynamic, p -> i -> Tuple2.of((Object) p, i % 2 == 0 ? (Object) ("v" + i) : (Object) (long) i),
                LocalShuffleService.DEFAULT_BUFFER_SIZE);
    }

    /**
     * {@code PRODUCERS} threads each write {@code RECORDS} records (record i of producer p is
     * {@code make.apply(p).apply(i)}) through a REBALANCE writer with one channel into one gate.
     */
    private static <T> void roundTrip(TypeSerializer<T> serializer, IntFunction<IntFunction<T>> make, int bufferSize)
            throws Exception {
        LocalShuffleService shuffle = new LocalShuffleService(2, bufferSize);
        List<LocalChannel> gateChannels = new ArrayList<>();
        List<NetworkTestSupport.Running> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            List<LocalChannel> out = NetworkTestSupport.channels(shuffle, 1, p, 1);
            gateChannels.addAll(out);
            RecordWriter<T> writer = new RecordWriter<>(out, serializer, Partitioner.rebalance(), bufferSize);
            IntFunction<T> recordOf = make.apply(p);
            producers.add(NetworkTestSupport.start("producer-" + p, () -> {
                for (int i = 0; i < RECORDS; i++) {
                    writer.emit(recordOf.apply(i));
                }
                writer.close();
            }));
        }
        InputGate gate = new InputGate("round-trip", gateChannels);
        StreamInputProcessor<T> processor = new StreamInputProcessor<>(gate, serializer, IdleHook.NONE);
        List<List<T>> received = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            received.add(new ArrayList<>());
        }
        List<T> all = new ArrayList<>();
        while (processor.processNext(all::add, new NetworkTestSupport.Recorder()) != InputStatus.END_OF_INPUT) {
            // keep going
        }
        for (NetworkTestSupport.Running producer : producers) {
            producer.outcome().get(10, TimeUnit.SECONDS);
        }
        for (T record : all) {
            received.get(producerOf(record)).add(record);
        }
        for (int p = 0; p < PRODUCERS; p++) {
            List<T> expected = new ArrayList<>();
            IntFunction<T> recordOf = make.apply(p);
            for (int i = 0; i < RECORDS; i++) {
                expected.add(recordOf.apply(i));
            }
            assertThat(received.get(p)).as("records of producer %d, in order", p).isEqualTo(expected);
        }
        assertThat(processor.recordsRead()).isEqualTo((long) PRODUCERS * RECORDS);
    }

    /** Each record names its producer: the millions of a Long, the prefix of a String, f0 of a tuple. */
    private static int producerOf(Object record) {
        if (record instanceof Long l) {
            return (int) (l / 1_000_000);
        }
        if (record instanceof String s) {
            return Integer.parseInt(s.substring(0, s.indexOf(':')));
        }
        return (Integer) ((Tuple2<?, ?>) record).f0();
    }
}
