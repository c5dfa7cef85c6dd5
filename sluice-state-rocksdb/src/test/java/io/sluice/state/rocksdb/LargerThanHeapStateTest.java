package io.sluice.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.config.Configuration;
import io.sluice.core.serialization.Serializers;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.KeyedStateBackendParameters;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keyed state several times larger than the JVM's heap: this class runs in a JVM of its own with
 * {@code -Xmx64m} (the {@code larger-than-heap} Surefire execution of this module's pom), writes
 * five times the maximum heap of incompressible values into value, list and map state, reads every
 * eighth key back and counts all of them with a scan. The slot's native memory stays within its budget meanwhile.
 */
class LargerThanHeapStateTest {
    private static final int MAX_PARALLELISM = 128;
    private static final int VALUE_BYTES = 1024;
    private static final long SEED = 20261203L;
    /** Every this many keys is read back and compared; all are counted by a scan. */
    private static final int CHECKED_EVERY = 8;

    @TempDir
    Path localDir;

    @Test
    void stateFiveTimesTheHeapIsWrittenAndReadBackWithNativeMemoryWithinTheBudget() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Boolean.getBoolean("sluice.test.small-heap"),
                "runs in the larger-than-heap execution only (its JVM has -Xmx64m)");
        long maxHeap = Runtime.getRuntime().maxMemory();
        assertThat(maxHeap).as("run with -Xmx64m (the larger-than-heap execution)").isLessThan(128L << 20);
        long stateBytes = 5 * maxHeap;
        long keys = stateBytes / (VALUE_BYTES + 2 * 8 + 2 * 8);
        long budget = 32L << 20;
        System.out.printf("max heap %d MiB; writing %d keys, %d MiB of state; slot budget %d MiB; seed %d%n",
                maxHeap >> 20, keys, stateBytes >> 20, budget >> 20, SEED);

        RocksDbStateBackend stateBackend = new RocksDbStateBackend(new Configuration()
                .set(RocksDbOptions.MEMORY_PER_SLOT, budget).set(RocksDbOptions.LOCAL_DIR, localDir.toString()));
        KeyedStateBackend b = stateBackend.createKeyedStateBackend(new KeyedStateBackendParameters("larger than heap",
                "slot", KeyGroupRange.of(0, MAX_PARALLELISM - 1), MAX_PARALLELISM, Serializers.LONG, new ManualClock(0)));
        try {
            ValueState<byte[]> values = b.getValueState(new ValueStateDescriptor<>("values", Serializers.BYTES));
            ListState<Long> lists = b.getListState(new ListStateDescriptor<>("lists", Serializers.LONG));
            MapState<Long, Long> maps = b.getMapState(new MapStateDescriptor<>("maps", Serializers.LONG, Serializers.LONG));
            SplittableRandom random = new SplittableRandom(SEED);
            byte[] value = new byte[VALUE_BYTES];
            long maxUsage = 0;
            long started = System.nanoTime();
            for (long k = 0; k < keys; k++) {
                fill(value, random);
                b.setCurrentKey(k);
                values.update(value);
                lists.add(k);
                lists.add(-k);
                maps.put(k, k * 7);
                if (k % 4096 == 0) {
                    maxUsage = Math.max(maxUsage, (long) b.metrics().memoryUsageBytes());
                }
            }
            long written = System.nanoTime();
            random = new SplittableRandom(SEED);
            for (long k = 0; k < keys; k++) {
                fill(value, random);
                if (k % CHECKED_EVERY != 0) {
                    continue; // point reads of random groups: a sample keeps the test short on a busy machine
                }
                b.setCurrentKey(k);
                if (!Arrays.equals(values.value(), value)) {
                    throw new AssertionError("key " + k + ": the value read back differs from the one written");
                }
                assertThat(lists.get()).containsExactly(k, -k);
                assertThat(maps.get(k)).isEqualTo(k * 7);
                if (k % 4096 == 0) {
                    maxUsage = Math.max(maxUsage, (long) b.metrics().memoryUsageBytes());
                }
            }
            assertThat(b.numberOfKeys()).as("every key in each of the three states (a full scan)").isEqualTo(3 * keys);
            long read = System.nanoTime();
            double disk = b.metrics().diskBytes();
            System.out.printf("wrote %d keys in %.1f s, read back every %dth and scanned all in %.1f s; on disk %.0f MiB;"
                            + " highest slot memory usage %.1f MiB of %d MiB; heap used at the end %d MiB%n",
                    keys, (written - started) / 1e9, CHECKED_EVERY, (read - written) / 1e9, disk / (1 << 20), maxUsage / (double) (1 << 20),
                    budget >> 20, (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20);
            assertThat(disk).as("the state is on disk, several heaps of it").isGreaterThan(4.0 * maxHeap);
            assertThat(maxUsage).as("the slot's native memory stays within its budget (plus one arena block)")
                    .isLessThanOrEqualTo(budget + (1L << 20));
        } finally {
            b.close();
            stateBackend.close();
        }
    }

    /**
     * A savepoint (the canonical snapshot every backend reads) of state five times the heap, written through an
     * output that drains each key group to a file, and restored from that file as a stream into a new backend:
     * before snapshots streamed, both sides held the whole snapshot in one array, which ran out of heap.
     */
    @Test
    void aCanonicalSnapshotOfStateFiveTimesTheHeapIsWrittenAndRestoredAsStreams() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Boolean.getBoolean("sluice.test.small-heap"),
                "runs in the larger-than-heap execution only (its JVM has -Xmx64m)");
        long maxHeap = Runtime.getRuntime().maxMemory();
        long keys = 5 * maxHeap / VALUE_BYTES;
        RocksDbStateBackend stateBackend = new RocksDbStateBackend(new Configuration()
                .set(RocksDbOptions.MEMORY_PER_SLOT, 32L << 20).set(RocksDbOptions.LOCAL_DIR, localDir.toString()));
        Path snapshotFile = localDir.resolve("savepoint.bin");
        ValueStateDescriptor<byte[]> descriptor = new ValueStateDescriptor<>("values", Serializers.BYTES);
        KeyedStateBackend source = backend(stateBackend, "source");
        KeyedStateBackend restored = null;
        try {
            ValueState<byte[]> values = source.getValueState(descriptor);
            SplittableRandom random = new SplittableRandom(SEED);
            byte[] value = new byte[VALUE_BYTES];
            for (long k = 0; k < keys; k++) {
                fill(value, random);
                source.setCurrentKey(k);
                values.update(value);
            }
            long started = System.nanoTime();
            try (java.io.OutputStream file = new java.io.BufferedOutputStream(java.nio.file.Files.newOutputStream(snapshotFile))) {
                io.sluice.core.serialization.DataOutputBuffer buffer = new io.sluice.core.serialization.DataOutputBuffer(4096);
                source.snapshot().writeTo(new io.sluice.state.KeyedSnapshotOutput() {
                    @Override
                    public io.sluice.core.serialization.DataOutputBuffer buffer() {
                        return buffer;
                    }

                    @Override
                    public void groupWritten() {
                        try {
                            file.write(buffer.array(), 0, buffer.position());
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                        buffer.clear();
                    }
                });
            }
            long written = System.nanoTime();
            long size = java.nio.file.Files.size(snapshotFile);
            assertThat(size).as("the snapshot is larger than the heap").isGreaterThan(4 * maxHeap);
            source.close();

            restored = backend(stateBackend, "restored");
            restored.restoreFrom(java.util.List.of(new io.sluice.state.KeyedSnapshotInput() {
                @Override
                public java.io.InputStream open() throws java.io.IOException {
                    return java.nio.file.Files.newInputStream(snapshotFile);
                }

                @Override
                public long length() {
                    return size;
                }
            }));
            long read = System.nanoTime();
            ValueState<byte[]> restoredValues = restored.getValueState(descriptor);
            random = new SplittableRandom(SEED);
            for (long k = 0; k < keys; k++) {
                fill(value, random);
                if (k % CHECKED_EVERY == 0) {
                    restored.setCurrentKey(k);
                    if (!Arrays.equals(restoredValues.value(), value)) {
                        throw new AssertionError("key " + k + ": the restored value differs from the one written");
                    }
                }
            }
            assertThat(restored.numberOfKeys()).isEqualTo(keys);
            System.out.printf("canonical snapshot of %d keys, %d MiB (heap %d MiB): written in %.1f s, restored in %.1f s%n",
                    keys, size >> 20, maxHeap >> 20, (written - started) / 1e9, (read - written) / 1e9);
        } finally {
            source.close();
            if (restored != null) {
                restored.close();
            }
            stateBackend.close();
        }
    }

    private static KeyedStateBackend backend(RocksDbStateBackend stateBackend, String owner) {
        return stateBackend.createKeyedStateBackend(new KeyedStateBackendParameters(owner, "slot",
                KeyGroupRange.of(0, MAX_PARALLELISM - 1), MAX_PARALLELISM, Serializers.LONG, new ManualClock(0)));
    }

    private static void fill(byte[] value, SplittableRandom random) {
        for (int i = 0; i < value.length; i += 8) {
            long r = random.nextLong();
            for (int j = 0; j < 8; j++) {
                value[i + j] = (byte) (r >>> (8 * j));
            }
        }
    }
}
