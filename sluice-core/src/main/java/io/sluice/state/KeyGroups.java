package io.sluice.state;

/**
 * Maps keys to key groups and key groups to subtasks.
 *
 * <p>A key's group is fixed by the job's max parallelism and never changes; a subtask owns a
 * contiguous range of groups. So state can later be rescaled by handing whole groups to other
 * subtasks, without rehashing any key.
 */
public final class KeyGroups {
    private KeyGroups() {}

    /**
     * The key group of {@code key}, in {@code [0, maxParallelism)}, from {@link #stableHashCode}.
     */
    public static int keyGroupFor(Object key, int maxParallelism) {
        if (key == null) {
            throw new io.sluice.api.errors.NullKeyException("A key selector returned null; keys must not be null");
        }
        return keyGroupForHash(stableHashCode(key), maxParallelism);
    }

    /**
     * A hash of {@code key} that is the same in every JVM: {@code hashCode()}, except for enums,
     * whose {@code hashCode()} is their identity and differs between JVMs (they hash by name), and
     * for records with enum components (declared as an enum or a record type that has one), which
     * hash like a record does but over the components' stable hashes.
     */
    public static int stableHashCode(Object key) {
        if (key instanceof Enum<?> e) {
            return e.name().hashCode();
        }
        if (key instanceof Record r && RecordHashing.NEEDS_STABLE_HASH.get(r.getClass())) {
            return RecordHashing.hash(r);
        }
        return key.hashCode();
    }

    /**
     * The key group of a key whose {@code hashCode} is {@code hash}. A power-of-two max parallelism
     * (such as the default, 128) takes the mask, which equals {@code floorMod} there but costs no
     * integer division: this runs once per record on both sides of a keyed edge.
     */
    static int keyGroupForHash(int hash, int maxParallelism) {
        int h = mix(hash);
        return maxParallelism > 0 && (maxParallelism & (maxParallelism - 1)) == 0
                ? h & (maxParallelism - 1)
                : Math.floorMod(h, maxParallelism);
    }

    /** The subtask that owns {@code keyGroup}. The inverse of {@link #rangeForSubtask}. */
    public static int subtaskForKeyGroup(int keyGroup, int maxParallelism, int parallelism) {
        return (int) ((long) keyGroup * parallelism / maxParallelism);
    }

    /** The key groups owned by subtask {@code index}. */
    public static KeyGroupRange rangeForSubtask(int index, int maxParallelism, int parallelism) {
        int start = (int) (((long) index * maxParallelism + parallelism - 1) / parallelism);
        int end = (int) (((long) (index + 1) * maxParallelism + parallelism - 1) / parallelism) - 1;
        return new KeyGroupRange(start, end);
    }

    /**
     * Spreads poorly distributed hash codes (such as consecutive longs) over all groups: the
     * finalisation step of a 32-bit Murmur3 hash.
     */
    static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }

    /** Stable hashes of records whose default hash would use an enum's identity hash. */
    private static final class RecordHashing {
        static final ClassValue<Boolean> NEEDS_STABLE_HASH = new ClassValue<>() {
            @Override
            protected Boolean computeValue(Class<?> type) {
                return needsStableHash(type, 0);
            }
        };

        private static boolean needsStableHash(Class<?> type, int depth) {
            if (type.isEnum()) {
                return true;
            }
            if (!type.isRecord() || depth > 8) {
                return false;
            }
            for (var c : type.getRecordComponents()) {
                if (needsStableHash(c.getType(), depth + 1)) {
                    return true;
                }
            }
            return false;
        }

        static int hash(Record r) {
            int h = 0;
            for (var c : r.getClass().getRecordComponents()) {
                Object v;
                try {
                    var accessor = c.getAccessor();
                    accessor.setAccessible(true);
                    v = accessor.invoke(r);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    throw new IllegalStateException("Cannot hash key " + r + ": component " + c.getName()
                            + " of record " + r.getClass().getName() + " is not readable (" + e + ")", e);
                }
                h = 31 * h + (v == null ? 0 : stableHashCode(v));
            }
            return h;
        }
    }
}
