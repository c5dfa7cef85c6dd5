package io.sluice.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.tuple.Tuple2;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.Serializers;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Restores {@code keyed-snapshot-v1.bin}, a snapshot in format version 1 written by the build
 * before serializers had stable ids (its built-in serializers are anonymous classes
 * {@code Serializers$1..$6} there, which no longer exist). See the README beside the resource.
 */
class LegacyKeyedSnapshotTest {
    private static final int MAX = 128;

    @Test
    void aFormatVersion1SnapshotRestoresWithEveryValue() throws IOException {
        byte[] bytes = resource("keyed-snapshot-v1.bin");
        assertThat(bytes[7]).as("format version of the resource").isEqualTo((byte) 1);

        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        backend.restore(List.of(new DataInputBuffer(bytes)));

        assertRestored(backend);
    }

    @Test
    void aRestoredFormatVersion1SnapshotIsWrittenAgainInTheCurrentFormat() throws IOException {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        backend.restore(List.of(new DataInputBuffer(resource("keyed-snapshot-v1.bin"))));
        DataOutputBuffer out = new DataOutputBuffer(4096);
        backend.snapshot().writeTo(out);
        byte[] current = out.toByteArray();
        assertThat(current[7]).isEqualTo((byte) KeyedSnapshotFormat.VERSION);
        assertThat(new String(current, java.nio.charset.StandardCharsets.ISO_8859_1)).doesNotContain("Serializers$");

        HeapKeyedStateBackend again = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        again.restore(List.of(new DataInputBuffer(current)));
        assertRestored(again);
    }

    private static void assertRestored(HeapKeyedStateBackend backend) {
        var count = backend.getValueState(new ValueStateDescriptor<>("count", Serializers.LONG));
        var nInt = backend.getValueState(new ValueStateDescriptor<>("int", Serializers.nullable(Serializers.INT)));
        var dbl = backend.getValueState(new ValueStateDescriptor<>("double", Serializers.DOUBLE));
        var bool = backend.getValueState(new ValueStateDescriptor<>("boolean", Serializers.BOOLEAN));
        var bytes = backend.getValueState(new ValueStateDescriptor<>("bytes", Serializers.BYTES));
        var pair = backend.getValueState(new ValueStateDescriptor<>("pair",
                Serializers.tuple2(Serializers.LONG, Serializers.STRING)));
        var strings = backend.getValueState(new ValueStateDescriptor<>("strings", Serializers.list(Serializers.STRING)));
        var dyn = backend.getValueState(new ValueStateDescriptor<>("dynamic"));
        var events = backend.getListState(new ListStateDescriptor<>("events", Serializers.STRING));
        var totals = backend.getMapState(new MapStateDescriptor<>("totals", Serializers.STRING, Serializers.LONG));
        assertThat(backend.numberOfKeys()).isEqualTo(20 * 10);
        for (long k = 0; k < 20; k++) {
            backend.setCurrentKey(k % 2 == 0 ? (Object) k : (Object) ("key-" + k));
            assertThat(count.value()).isEqualTo(k * 10);
            assertThat(nInt.value()).isEqualTo((int) k);
            assertThat(dbl.value()).isEqualTo(k + 0.5);
            assertThat(bool.value()).isEqualTo(k % 3 == 0);
            assertThat(bytes.value()).isEqualTo(new byte[] {(byte) k, 1, 2});
            assertThat(pair.value()).isEqualTo(Tuple2.of(k, "p" + k));
            assertThat(strings.value()).containsExactly("s" + k, "t" + k);
            assertThat(dyn.value()).isEqualTo(Tuple2.of("d" + k, List.of(k, k + 1)));
            assertThat(events.get()).containsExactly("e" + k, "f" + k);
            assertThat(totals.entries()).containsExactlyInAnyOrder(Map.entry("x", k), Map.entry("y", -k));
        }
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = LegacyKeyedSnapshotTest.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }
}
