package io.sluice.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.tuple.Tuple2;
import io.sluice.api.functions.KeySelector;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.state.KeyGroups;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class PartitioningTest {
    private static final TypeSerializer<Tuple2<Long, Long>> TUPLES = Serializers.tuple2(Serializers.LONG, Serializers.LONG);

    @Test
    void hashSendsEachKeyToTheSubtaskKeyGroupsNames() throws Exception {
        int maxParallelism = 128;
        int consumers = 3;
        List<LocalChannel> channels = NetworkTestSupport.channels(new LocalShuffleService(64, 256), 1, 0, consumers);
        KeySelector<Tuple2<Long, Long>, Long> byF0 = Tuple2::f0;
        RecordWriter<Tuple2<Long, Long>> writer =
                new RecordWriter<>(channels, TUPLES, Partitioner.hash(byF0, maxParallelism), 256);
        for (long i = 0; i < 2_000; i++) {
            writer.emit(Tuple2.of(i % 500, i));
        }
        writer.flushAll();

        long seen = 0;
        for (int c = 0; c < consumers; c++) {
            for (Tuple2<Long, Long> t : drain(channels.get(c))) {
                int keyGroup = KeyGroups.keyGroupFor(t.f0(), maxParallelism);
                assertThat(KeyGroups.subtaskForKeyGroup(keyGroup, maxParallelism, consumers))
                        .as("subtask of key %d", t.f0()).isEqualTo(c);
                seen++;
            }
            assertThat(channels.get(c).maxQueuedBuffers()).as("every subtask gets some keys").isPositive();
        }
        assertThat(seen).isEqualTo(2_000);
        assertThat(writer.recordsWritten()).isEqualTo(2_000);
    }

    @Test
    void rebalanceDealsRecordsRoundRobin() throws Exception {
        List<LocalChannel> channels = NetworkTestSupport.channels(new LocalShuffleService(), 1, 0, 3);
        RecordWriter<Tuple2<Long, Long>> writer = new RecordWriter<>(channels, TUPLES, Partitioner.rebalance(), 1024);
        for (long i = 0; i < 9; i++) {
            writer.emit(Tuple2.of(i, i));
        }
        writer.flushAll();
        for (int c = 0; c < 3; c++) {
            assertThat(drain(channels.get(c))).extracting(Tuple2::f0).containsExactly((long) c, c + 3L, c + 6L);
        }
    }

    @Test
    void keySelectorExceptionsPropagateUnchanged() {
        List<LocalChannel> channels = NetworkTestSupport.channels(new LocalShuffleService(), 1, 0, 2);
        Exception boom = new Exception("no key here");
        KeySelector<Tuple2<Long, Long>, Long> failing = t -> {
            throw boom;
        };
        RecordWriter<Tuple2<Long, Long>> writer = new RecordWriter<>(channels, TUPLES, Partitioner.hash(failing, 16), 1024);
        assertThatThrownBy(() -> writer.emit(Tuple2.of(1L, 1L))).isSameAs(boom);
    }

    @Test
    void forwardNeedsEqualParallelismAndOneChannel() {
        Partitioner<Long> forward = Partitioner.forward();
        forward.checkParallelism(4, 4);
        assertThat(forward.consumerSubtasks(2, 4)).containsExactly(2);
        assertThatThrownBy(() -> forward.checkParallelism(2, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("equal parallelism");
        List<LocalChannel> two = NetworkTestSupport.channels(new LocalShuffleService(), 1, 0, 2);
        assertThatThrownBy(() -> new RecordWriter<>(two, Serializers.LONG, forward, 1024))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exactly one channel");
    }

    private static List<Tuple2<Long, Long>> drain(LocalChannel channel) {
        List<Tuple2<Long, Long>> out = new ArrayList<>();
        DataInputBuffer in = new DataInputBuffer();
        for (Buffer b = channel.poll(); b != null; b = channel.poll()) {
            in.reset(b.data(), 0, b.length());
            while (in.hasRemaining()) {
                out.add(TUPLES.deserialize(in));
            }
            b.recycle();
        }
        return out;
    }
}
