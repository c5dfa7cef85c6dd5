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
import java.util.HashMap;
import java.util.Map;
import io.sluice.core.serialization.DataInputBuffer;
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
     * checkpoint described, in that order, and {@code written} the key groups of the backend that wrote them. A
     * chunk goes to RocksDB as it is (one native call) when those column families have the ids the segment names
     * and {@code written} lies within this backend's range; otherwise write by write, filtered. Returns the writes
     * applied.
     */
    long replay(List<Path> segments, List<ColumnFamilyHandle> columns, KeyGroupRange written) {
        long applied = 0;
        for (Path segment : segments) {
            applied += replay(segment, columns, written);
        }
        return applied;
    }

    private long replay(Path segment, List<ColumnFamilyHandle> columns, KeyGroupRange written) {
        long applied = 0;
        try (InputStream file = Files.newInputStream(segment);
             DataInputStream in = new DataInputStream(new BufferedInputStream(file, 1 << 16))) {
            if (in.readInt() != RocksDbChangelog.MAGIC) {
                throw corrupt(segment, "it does not start with the changelog marker");
            }
            int version = in.readInt();
            if (version != RocksDbChangelog.VERSION) {
                throw corrupt(segment, "it has version " + version + ", this Sluice reads version "
                        + RocksDbChangelog.VERSION);
            }
            int n = readVarInt(in);
            if (n != columns.size()) {
                throw corrupt(segment, "it names " + n + " states, its checkpoint describes " + columns.size());
            }
            Map<Integer, ColumnFamilyHandle> byId = new HashMap<>();
            boolean sameIds = true;
            for (int i = 0; i < n; i++) {
                int id = readVarInt(in);
                byId.put(id, columns.get(i));
                sameIds &= columns.get(i).getID() == id;
            }
            boolean asIs = sameIds && range.start() <= written.start() && written.end() <= range.end();
            while (true) {
                int length = in.readInt();
                if (length == 0) {
                    break;
                }
                if (length < RocksDbChangelog.BATCH_HEADER) {
                    throw corrupt(segment, "a chunk of " + length + " bytes");
                }
                byte[] rep = new byte[length];
                in.readFully(rep);
                if (asIs) {
                    try (WriteBatch batch = new WriteBatch(rep)) {
                        applied += batch.count();
                        instance.db().write(instance.writeOptions, batch);
                    }
                } else {
                    applied += replayFiltered(segment, rep, byId);
                }
            }
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

    /** Applies the writes of one chunk to this backend's key groups, mapping column families by id. */
    private long replayFiltered(Path segment, byte[] rep, Map<Integer, ColumnFamilyHandle> byId)
            throws RocksDBException {
        long applied = 0;
        DataInputBuffer in = new DataInputBuffer(rep);
        in.position(RocksDbChangelog.BATCH_HEADER);
        try (WriteBatch batch = new WriteBatch()) {
            while (in.hasRemaining()) {
                byte type = in.readByte();
                ColumnFamilyHandle column = byId.get(in.readVarInt());
                if (column == null) {
                    throw corrupt(segment, "a write to a column family that is no state's");
                }
                byte[] key = bytes(in);
                switch (type) {
                    case RocksDbChangelog.CF_VALUE -> {
                        byte[] value = bytes(in);
                        if (inRange(key)) {
                            batch.put(column, key, value);
                            applied++;
                        }
                    }
                    case RocksDbChangelog.CF_MERGE -> {
                        byte[] value = bytes(in);
                        if (inRange(key)) {
                            batch.merge(column, key, value);
                            applied++;
                        }
                    }
                    case RocksDbChangelog.CF_DELETION, RocksDbChangelog.CF_SINGLE_DELETION -> {
                        if (inRange(key)) {
                            batch.delete(column, key);
                            applied++;
                        }
                    }
                    case RocksDbChangelog.CF_RANGE_DELETION -> {
                        byte[] end = bytes(in);
                        byte[] from = max(key, rangeStart);
                        byte[] to = min(end, rangeEnd);
                        if (Arrays.compareUnsigned(from, to) < 0) {
                            batch.deleteRange(column, from, to);
                            applied++;
                        }
                    }
                    default -> throw corrupt(segment, "a write of an unknown type " + type);
                }
            }
            instance.db().write(instance.writeOptions, batch);
        }
        return applied;
    }

    private static byte[] bytes(DataInputBuffer in) {
        byte[] b = new byte[in.readVarInt()];
        in.readFully(b);
        return b;
    }

    private boolean inRange(byte[] key) {
        return range.contains(RocksDbKeys.keyGroupOf(key));
    }

    private RocksDbStateException corrupt(Path segment, String why) {
        return new RocksDbStateException("The changelog segment " + segment.getFileName() + " of " + instance.owner()
                + " is corrupt: " + why + ". Restore from an earlier checkpoint or a savepoint", null);
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
