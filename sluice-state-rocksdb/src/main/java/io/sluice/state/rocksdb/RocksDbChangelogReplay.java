package io.sluice.state.rocksdb;

import io.sluice.state.KeyGroupRange;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * Replays the changelog segments of a restored checkpoint ({@link RocksDbChangelog}) onto the instance its base was
 * restored into, oldest first, keeping the writes to key groups of the restoring backend's range (a rescale restores
 * several handles' bases and replays each one's segments; a range deletion is clipped to the range).
 *
 * <p>Threading: the task thread, while restoring.
 */
final class RocksDbChangelogReplay {
    private static final int BATCH_BYTES = 4 << 20;

    private final RocksDbInstance instance;
    private final KeyGroupRange range;
    private final byte[] rangeStart;
    private final byte[] rangeEnd;

    RocksDbChangelogReplay(RocksDbInstance instance, KeyGroupRange range) {
        this.instance = instance;
        this.range = range;
        this.rangeStart = RocksDbKeys.groupPrefix(range.start());
        this.rangeEnd = RocksDbKeys.groupPrefix(range.end() + 1);
    }

    /**
     * Moves the segments out of a downloaded checkpoint directory {@code downloaded} (RocksDB opens it next) into
     * {@code target}, and returns them oldest first; none for a checkpoint that materialised.
     */
    static List<Path> takeSegments(Path downloaded, Path target) throws IOException {
        List<Path> found;
        try (Stream<Path> files = Files.list(downloaded)) {
            found = files.filter(f -> RocksDbChangelog.isSegment(f.getFileName().toString())).sorted().toList();
        }
        if (found.isEmpty()) {
            return List.of();
        }
        Files.createDirectories(target);
        return found.stream().map(f -> {
            try {
                return Files.move(f, target.resolve(f.getFileName()));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }).toList();
    }

    /**
     * Applies {@code segments} in order; {@code columns} are the column families of the states the segments'
     * checkpoint described, in that order. Returns the writes applied.
     */
    long replay(List<Path> segments, List<ColumnFamilyHandle> columns) {
        long applied = 0;
        for (Path segment : segments) {
            applied += replay(segment, columns);
        }
        return applied;
    }

    private long replay(Path segment, List<ColumnFamilyHandle> columns) {
        long applied = 0;
        try (InputStream file = Files.newInputStream(segment);
             DataInputStream in = new DataInputStream(new BufferedInputStream(file, 1 << 16));
             WriteBatch batch = new WriteBatch()) {
            if (in.readInt() != RocksDbChangelog.MAGIC) {
                throw corrupt(segment, "it does not start with the changelog marker");
            }
            int version = in.readInt();
            if (version != RocksDbChangelog.VERSION) {
                throw corrupt(segment, "it has version " + version + ", this Sluice reads version "
                        + RocksDbChangelog.VERSION);
            }
            while (true) {
                byte op = in.readByte();
                if (op == RocksDbChangelog.END) {
                    break;
                }
                int state = readVarInt(in);
                if (state >= columns.size()) {
                    throw corrupt(segment, "a write to state number " + state + " of " + columns.size());
                }
                ColumnFamilyHandle column = columns.get(state);
                byte[] key = readBytes(in);
                switch (op) {
                    case RocksDbChangelog.PUT -> {
                        byte[] value = readBytes(in);
                        if (inRange(key)) {
                            batch.put(column, key, value);
                            applied++;
                        }
                    }
                    case RocksDbChangelog.MERGE -> {
                        byte[] value = readBytes(in);
                        if (inRange(key)) {
                            batch.merge(column, key, value);
                            applied++;
                        }
                    }
                    case RocksDbChangelog.DELETE -> {
                        if (inRange(key)) {
                            batch.delete(column, key);
                            applied++;
                        }
                    }
                    case RocksDbChangelog.DELETE_RANGE -> {
                        byte[] end = readBytes(in);
                        byte[] from = max(key, rangeStart);
                        byte[] to = min(end, rangeEnd);
                        if (Arrays.compareUnsigned(from, to) < 0) {
                            batch.deleteRange(column, from, to);
                            applied++;
                        }
                    }
                    default -> throw corrupt(segment, "an unknown record type " + op);
                }
                if (batch.getDataSize() >= BATCH_BYTES) {
                    instance.db().write(instance.writeOptions, batch);
                    batch.clear();
                }
            }
            instance.db().write(instance.writeOptions, batch);
        } catch (EOFException e) {
            throw corrupt(segment, "it is cut off before its end");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("Could not read the changelog segment " + segment + " of "
                    + instance.owner() + ": " + e.getMessage(), e);
        } catch (RocksDBException e) {
            throw instance.failure("replay the changelog segment " + segment.getFileName(), e);
        }
        return applied;
    }

    private boolean inRange(byte[] key) {
        return range.contains(RocksDbKeys.keyGroupOf(key));
    }

    private RocksDbStateException corrupt(Path segment, String why) {
        return new RocksDbStateException("The changelog segment " + segment.getFileName() + " of " + instance.owner()
                + " is corrupt: " + why + ". Restore from an earlier checkpoint or a savepoint", null);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        byte[] bytes = new byte[readVarInt(in)];
        in.readFully(bytes);
        return bytes;
    }

    private static int readVarInt(DataInputStream in) throws IOException {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int b = in.readByte();
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new IOException("a length longer than 5 bytes");
    }

    private static byte[] max(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b) >= 0 ? a : b;
    }

    private static byte[] min(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b) <= 0 ? a : b;
    }
}
