package io.sluice.operators;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.functions.AggregateFunction;
import io.sluice.api.windowing.WindowAssigner;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.operators.windowing.WindowContents;
import io.sluice.operators.windowing.WindowOperator;
import io.sluice.state.HeapKeyedStateBackend;
import io.sluice.state.KeyGroupRange;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Restores {@code window-snapshot-v2.bin}, the state of a session-window operator written before the
 * window contents had their own key serializer (see the README beside the resource): the sessions,
 * their contents and their timers come back, grow and fire as if the job had never stopped, and the
 * next snapshot is written with the current serializers.
 */
class LegacyWindowSnapshotTest {
    private static final int MAX = 128;

    static final class Sum implements AggregateFunction<Long, Long, Long> {
        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Long v, Long acc) {
            return acc + v;
        }

        @Override
        public Long getResult(Long acc) {
            return acc;
        }

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }
    }

    @Test
    void sessionsAndTheirTimersRestoredFromTheOldFormatGrowAndFire() throws Exception {
        HeapKeyedStateBackend backend = restore(resource());
        assertFiresAsExpected(backend);
    }

    @Test
    void aRestoredOldSnapshotIsWrittenAgainWithTheTimeWindowSerializer() throws Exception {
        HeapKeyedStateBackend backend = restore(resource());
        new OperatorHarness<>(operator(), backend); // opening registers the current descriptors
        DataOutputBuffer out = new DataOutputBuffer(4096);
        backend.snapshot().writeTo(out);
        byte[] current = out.toByteArray();
        String text = new String(current, StandardCharsets.ISO_8859_1);
        assertThat(text).contains("sluice.time-window").doesNotContain("io.sluice.api.windowing.TimeWindow");
        assertThat(current.length).as("16 bytes per window instead of a record with its class name")
                .isLessThan(resource().length);
        assertFiresAsExpected(restore(current));
    }

    private static void assertFiresAsExpected(HeapKeyedStateBackend backend) throws Exception {
        OperatorHarness<Long> h = new OperatorHarness<>(operator(), backend);
        backend.setCurrentKey(1L);
        h.element(100L, 112); // [112,122) joins key 1's [100,115): [100,122), 2 + 100
        List<String> expected = new ArrayList<>();
        expected.add("1000@59");
        expected.add("102@121");
        for (long k = 2; k < 10; k++) {
            expected.add((k + 1) + "@" + (100 * k + 14));
        }
        expected.add("wm MAX");
        h.watermark(Long.MAX_VALUE);
        assertThat(h.take()).containsExactlyElementsOf(expected);
        assertThat(backend.numberOfKeys()).as("every session and timer cleaned up").isZero();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static WindowOperator<Long, Long, ?, ?> operator() {
        return new WindowOperator(WindowAssigner.sessionEventTime(Duration.ofMillis(10)), 5, null,
                WindowContents.aggregating(new Sum()), "Window");
    }

    private static HeapKeyedStateBackend restore(byte[] bytes) {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        backend.restore(List.of(new DataInputBuffer(bytes)));
        return backend;
    }

    private static byte[] resource() throws IOException {
        try (InputStream in = LegacyWindowSnapshotTest.class.getResourceAsStream("window-snapshot-v2.bin")) {
            assertThat(in).as("test resource window-snapshot-v2.bin").isNotNull();
            return in.readAllBytes();
        }
    }
}
