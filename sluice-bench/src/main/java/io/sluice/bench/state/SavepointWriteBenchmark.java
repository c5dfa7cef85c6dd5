package io.sluice.bench.state;

import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.config.Configuration;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.Serializers;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyedSnapshotOutput;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.KeyedStateBackendParameters;
import io.sluice.state.rocksdb.RocksDbOptions;
import io.sluice.state.rocksdb.RocksDbStateBackend;
import io.sluice.util.SystemClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * How fast a RocksDB backend writes its canonical (savepoint) snapshot, the writer alone: one backend
 * over all key groups with {@code --keys} {@code Long} keys of {@code --value-bytes}-byte values in a
 * {@code ValueState<byte[]>} (the large-state scenario's shape), then {@code --rounds} full snapshots
 * written to an output that drops each key group's block (no disk, no checksum), one after the other
 * on this thread. Prints each round and the median: ms, entries per second and MB per second.
 *
 * <pre>{@code
 * java -cp "sluice-bench/target/classes:$(cat sluice-bench/target/classpath.txt)" \
 *     io.sluice.bench.state.SavepointWriteBenchmark --keys 4000000 --rounds 5
 * }</pre>
 *
 * <p>Threading: single-threaded (main).
 */
public final class SavepointWriteBenchmark {
    private static final int MAX_PARALLELISM = 128;
    private static final long SEED = 20261205L;

    private SavepointWriteBenchmark() {}

    public static void main(String[] args) throws Exception {
        long keys = 4_000_000;
        int valueBytes = 130;
        int rounds = 5;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--keys" -> keys = Long.parseLong(args[i + 1]);
                case "--value-bytes" -> valueBytes = Integer.parseInt(args[i + 1]);
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("Unknown option " + args[i]
                        + "; use --keys N, --value-bytes N, --rounds N");
            }
        }
        Path dir = Files.createTempDirectory("sluice-savepoint-bench");
        RocksDbStateBackend backends = new RocksDbStateBackend(new Configuration()
                .set(RocksDbOptions.LOCAL_DIR, dir.toString()));
        KeyedStateBackend b = backends.createKeyedStateBackend(new KeyedStateBackendParameters("savepoint bench",
                "slot", KeyGroupRange.of(0, MAX_PARALLELISM - 1), MAX_PARALLELISM, Serializers.LONG,
                SystemClock.INSTANCE));
        try {
            ValueState<byte[]> values = b.getValueState(new ValueStateDescriptor<>("value", Serializers.BYTES));
            SplittableRandom random = new SplittableRandom(SEED);
            byte[] value = new byte[valueBytes];
            long start = System.nanoTime();
            for (long k = 0; k < keys; k++) {
                random.nextBytes(value);
                b.setCurrentKey(k);
                values.update(value);
            }
            System.out.printf("wrote %,d keys of %d-byte values in %.1f s (seed %d)%n", keys, valueBytes,
                    (System.nanoTime() - start) / 1e9, SEED);
            List<Long> millis = new ArrayList<>();
            long bytes = 0;
            for (int r = 1; r <= rounds; r++) {
                DiscardingOutput out = new DiscardingOutput();
                long t0 = System.nanoTime();
                b.snapshot().writeTo(out);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                millis.add(ms);
                bytes = out.bytes;
                System.out.printf("round %d: %,d ms, %,d bytes, %,.0f entries/s, %.0f MB/s%n", r, ms, out.bytes,
                        keys * 1000.0 / ms, out.bytes / 1e3 / ms);
            }
            Collections.sort(millis);
            long median = millis.get(millis.size() / 2);
            System.out.printf("median of %d rounds: %,d ms, %,.0f entries/s, %.0f MB/s%n", rounds, median,
                    keys * 1000.0 / median, bytes / 1e3 / median);
        } finally {
            b.close();
            backends.close();
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Counts each key group's block and drops it. */
    private static final class DiscardingOutput implements KeyedSnapshotOutput {
        private final DataOutputBuffer buffer = new DataOutputBuffer(1 << 16);
        long bytes;

        @Override
        public DataOutputBuffer buffer() {
            return buffer;
        }

        @Override
        public void groupWritten() {
            bytes += buffer.position();
            buffer.clear();
        }
    }
}
