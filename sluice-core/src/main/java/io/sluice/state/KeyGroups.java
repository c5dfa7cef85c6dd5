package io.sluice.state;

import io.sluice.core.serialization.StableHash;

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
     * A hash of {@code key} that is the same in every JVM: {@link StableHash#of}, defined by value for
     * every key type Sluice accepts (equal to {@code hashCode()} for strings, boxed primitives, UUIDs
     * and records of those, so their key groups are the ones they always had).
     *
     * @throws io.sluice.core.serialization.UnstableKeyException if the key hashes by identity
     */
    public static int stableHashCode(Object key) {
        return StableHash.of(key);
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
}
