package io.sluice.state;

import java.util.Map;

/**
 * The entries of one state's table, ordered by key group with a counting sort, so that a snapshot
 * can write them group by group. Entries of group {@code g} are at indices
 * {@code [start(g), end(g))} of {@link #keys} and {@link #values}.
 *
 * <p>Threading: built and read by the one thread that writes a snapshot.
 */
final class KeyGroupPartition {
    private final KeyGroupRange range;
    /** offsets[i] .. offsets[i + 1] are the entries of key group range.start() + i. */
    private final int[] offsets;
    final Object[] keys;
    final Object[] values;

    private KeyGroupPartition(KeyGroupRange range, int[] offsets, Object[] keys, Object[] values) {
        this.range = range;
        this.offsets = offsets;
        this.keys = keys;
        this.values = values;
    }

    /** Partitions {@code table}, whose keys must all belong to key groups in {@code range}. */
    static KeyGroupPartition of(Map<Object, Object> table, KeyGroupRange range, int maxParallelism) {
        int n = table.size();
        Object[] unsortedKeys = new Object[n];
        Object[] unsortedValues = new Object[n];
        int[] groupIndex = new int[n];
        int[] offsets = new int[range.size() + 1];
        int i = 0;
        for (Map.Entry<Object, Object> e : table.entrySet()) {
            int keyGroup = KeyGroups.keyGroupFor(e.getKey(), maxParallelism);
            if (!range.contains(keyGroup)) {
                throw new IllegalStateException("Key " + e.getKey() + " of key group " + keyGroup
                        + " is in the state of a backend for key groups " + range
                        + ": its hashCode changed after it was stored; keys must be immutable");
            }
            unsortedKeys[i] = e.getKey();
            unsortedValues[i] = e.getValue();
            groupIndex[i] = keyGroup - range.start();
            offsets[groupIndex[i] + 1]++;
            i++;
        }
        for (int g = 0; g < range.size(); g++) {
            offsets[g + 1] += offsets[g];
        }
        int[] next = offsets.clone();
        Object[] keys = new Object[n];
        Object[] values = new Object[n];
        for (int j = 0; j < n; j++) {
            int slot = next[groupIndex[j]]++;
            keys[slot] = unsortedKeys[j];
            values[slot] = unsortedValues[j];
        }
        return new KeyGroupPartition(range, offsets, keys, values);
    }

    int start(int keyGroup) {
        return offsets[keyGroup - range.start()];
    }

    int end(int keyGroup) {
        return offsets[keyGroup - range.start() + 1];
    }

    int count(int keyGroup) {
        return end(keyGroup) - start(keyGroup);
    }
}
