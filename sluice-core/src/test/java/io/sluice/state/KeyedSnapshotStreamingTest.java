package io.sluice.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.Serializers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Snapshots written through a draining {@link KeyedSnapshotOutput} and read back as streams: memory for one key
 * group while writing, any chunking of the stream while reading, headers longer than the first prefix the reader
 * decodes, and truncated or padded streams named as unreadable.
 */
class KeyedSnapshotStreamingTest {
    private static final int MAX = 128;
    private static final ValueStateDescriptor<String> VALUE = new ValueStateDescriptor<>("value", Serializers.STRING);
    private static final MapStateDescriptor<Integer, Long> MAP =
            new MapStateDescriptor<>("map", Serializers.INT, Serializers.LONG);

    /** Drains the buffer to a byte stream after each group, recording how large the buffer became. */
    private static final class DrainingOutput implements KeyedSnapshotOutput {
        final DataOutputBuffer buffer = new DataOutputBuffer(64);
        final ByteArrayOutputStream drained = new ByteArrayOutputStream();
        int largestBuffer;
        int drains;

        @Override
        public DataOutputBuffer buffer() {
            return buffer;
        }

        @Override
        public void groupWritten() {
            largestBuffer = Math.max(largestBuffer, buffer.position());
            drained.write(buffer.array(), 0, buffer.position());
            buffer.clear();
            drains++;
        }
    }

    /** A stream that hands out at most {@code chunk} bytes per read, as a network stream may. */
    private static KeyedSnapshotInput chunked(byte[] bytes, int chunk, long length) {
        return new KeyedSnapshotInput() {
            @Override
            public InputStream open() {
                return new InputStream() {
                    int position;

                    @Override
                    public int read() {
                        return position < bytes.length ? bytes[position++] & 0xFF : -1;
                    }

                    @Override
                    public int read(byte[] b, int off, int len) {
                        if (position >= bytes.length) {
                            return -1;
                        }
                        int n = Math.min(Math.min(len, chunk), bytes.length - position);
                        System.arraycopy(bytes, position, b, off, n);
                        position += n;
                        return n;
                    }
                };
            }

            @Override
            public long length() {
                return length;
            }
        };
    }

    private static HeapKeyedStateBackend filled(int keys, int mapEntriesPerKey) {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        ValueState<String> value = backend.getValueState(VALUE);
        MapState<Integer, Long> map = backend.getMapState(MAP);
        for (int k = 0; k < keys; k++) {
            backend.setCurrentKey("key-" + k);
            value.update("value-" + k + "-" + "x".repeat(k % 50));
            for (int e = 0; e < mapEntriesPerKey; e++) {
                map.put(e, (long) k * e);
            }
        }
        return backend;
    }

    private static void assertHolds(HeapKeyedStateBackend restored, int keys, int mapEntriesPerKey) {
        ValueState<String> value = restored.getValueState(VALUE);
        MapState<Integer, Long> map = restored.getMapState(MAP);
        for (int k = 0; k < keys; k++) {
            restored.setCurrentKey("key-" + k);
            assertThat(value.value()).isEqualTo("value-" + k + "-" + "x".repeat(k % 50));
            for (int e = 0; e < mapEntriesPerKey; e++) {
                assertThat(map.get(e)).isEqualTo((long) k * e);
            }
        }
        assertThat(restored.numberOfKeys()).isEqualTo(2L * keys);
    }

    @Test
    void aDrainingOutputHoldsOneKeyGroupAtATimeAndTheStreamRestoresInAnyChunking() {
        int keys = 2_000;
        HeapKeyedStateBackend backend = filled(keys, 20);
        DrainingOutput out = new DrainingOutput();
        backend.snapshot().writeTo(out);
        byte[] whole = out.drained.toByteArray();

        DataOutputBuffer inMemory = new DataOutputBuffer(64);
        backend.snapshot().writeTo(inMemory);
        assertThat(Arrays.copyOf(inMemory.array(), inMemory.position())).as("same bytes as in memory").isEqualTo(whole);
        assertThat(out.drains).as("one drain per key group with data, and the end").isEqualTo(MAX + 1);
        assertThat(out.largestBuffer).as("largest buffer against the whole snapshot of " + whole.length + " bytes")
                .isLessThan(whole.length / 20);

        for (int chunk : new int[] {1, 3, 4096}) {
            for (long length : new long[] {whole.length, -1}) {
                HeapKeyedStateBackend restored = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
                restored.restoreFrom(List.of(chunked(whole, chunk, length)));
                assertHolds(restored, keys, 20);
            }
        }
    }

    @Test
    void twoStreamsOfOtherRangesRestoreIntoOneBackendSkippingGroupsOutsideItsRange() {
        int keys = 500;
        HeapKeyedStateBackend all = filled(keys, 3);
        List<KeyedSnapshotInput> parts = new ArrayList<>();
        for (KeyGroupRange half : List.of(KeyGroupRange.of(0, 63), KeyGroupRange.of(64, MAX - 1))) {
            HeapKeyedStateBackend part = new HeapKeyedStateBackend(half, MAX);
            DataOutputBuffer whole = new DataOutputBuffer(64);
            all.snapshot().writeTo(whole);
            part.restore(List.of(new io.sluice.core.serialization.DataInputBuffer(whole.array(), 0, whole.position())));
            DrainingOutput out = new DrainingOutput();
            part.snapshot().writeTo(out);
            parts.add(chunked(out.drained.toByteArray(), 7, -1));
        }
        HeapKeyedStateBackend restored = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        restored.restoreFrom(parts);
        assertHolds(restored, keys, 3);
    }

    @Test
    void aHeaderLongerThanTheFirstPrefixIsReadWhole() {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        int states = 400;
        String longName = "s".repeat(400); // 400 states of 400-character names: a header above 160 KB
        for (int s = 0; s < states; s++) {
            backend.getValueState(new ValueStateDescriptor<>(longName + s, Serializers.LONG));
        }
        backend.setCurrentKey("k");
        backend.getValueState(new ValueStateDescriptor<>(longName + 7, Serializers.LONG)).update(42L);
        DataOutputBuffer out = new DataOutputBuffer(64);
        backend.snapshot().writeTo(out);
        assertThat(out.position()).isGreaterThan(2 * KeyedSnapshotReader.HEADER_PREFIX_BYTES);

        HeapKeyedStateBackend restored = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        restored.restoreFrom(List.of(chunked(Arrays.copyOf(out.array(), out.position()), 1000, -1)));
        restored.setCurrentKey("k");
        assertThat(restored.getValueState(new ValueStateDescriptor<>(longName + 7, Serializers.LONG)).value())
                .isEqualTo(42L);
    }

    @Test
    void aTruncatedOrPaddedStreamIsUnreadableAndNamed() {
        HeapKeyedStateBackend backend = filled(300, 2);
        DataOutputBuffer out = new DataOutputBuffer(64);
        backend.snapshot().writeTo(out);
        byte[] whole = Arrays.copyOf(out.array(), out.position());
        Random random = new Random(20261204L);
        for (int i = 0; i < 20; i++) {
            int cut = i == 0 ? whole.length - 1 : 100 + random.nextInt(whole.length - 100);
            byte[] truncated = Arrays.copyOf(whole, cut);
            for (long length : new long[] {whole.length, -1}) {
                HeapKeyedStateBackend restored = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
                assertThatThrownBy(() -> restored.restoreFrom(List.of(chunked(truncated, 512, length))))
                        .as("cut at %d of %d, length %d", cut, whole.length, length)
                        .isInstanceOf(UnreadableSnapshotException.class)
                        .hasMessageContaining("Keyed-state snapshot #0")
                        .satisfies(e -> assertThat(((UnreadableSnapshotException) e).snapshotIndex()).isZero());
            }
        }
        byte[] padded = Arrays.copyOf(whole, whole.length + 5);
        HeapKeyedStateBackend restored = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        assertThatThrownBy(() -> restored.restoreFrom(List.of(chunked(padded, 512, -1))))
                .isInstanceOf(UnreadableSnapshotException.class)
                .hasMessageContaining("5 unexpected bytes after its last key group");
    }

    @Test
    void aStreamThatIsNoSnapshotIsRefusedAfterItsFirstBytesWithoutReadingOn() {
        byte[] notASnapshot = new byte[10 * KeyedSnapshotReader.HEADER_PREFIX_BYTES];
        new Random(7).nextBytes(notASnapshot);
        int[] read = {0};
        KeyedSnapshotInput counting = new KeyedSnapshotInput() {
            @Override
            public InputStream open() {
                return new InputStream() {
                    @Override
                    public int read() {
                        return read[0] < notASnapshot.length ? notASnapshot[read[0]++] & 0xFF : -1;
                    }
                };
            }

            @Override
            public long length() {
                return -1;
            }
        };
        HeapKeyedStateBackend restored = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        assertThatThrownBy(() -> restored.restoreFrom(List.of(counting)))
                .isInstanceOf(UnreadableSnapshotException.class)
                .hasMessageContaining("does not start with the keyed-state snapshot marker");
        assertThat(read[0]).isLessThanOrEqualTo(2 * KeyedSnapshotReader.HEADER_PREFIX_BYTES);
    }

    @Test
    void aStreamThatFailsToReadIsAnIoErrorNotAnUnreadableSnapshot() {
        KeyedSnapshotInput failing = new KeyedSnapshotInput() {
            @Override
            public InputStream open() {
                return new InputStream() {
                    @Override
                    public int read() throws IOException {
                        throw new IOException("Connection reset");
                    }
                };
            }

            @Override
            public long length() {
                return 100;
            }
        };
        HeapKeyedStateBackend restored = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        assertThatThrownBy(() -> restored.restoreFrom(List.of(failing)))
                .isInstanceOf(java.io.UncheckedIOException.class)
                .hasMessageContaining("Keyed-state snapshot #0 could not be read: Connection reset");
    }
}
