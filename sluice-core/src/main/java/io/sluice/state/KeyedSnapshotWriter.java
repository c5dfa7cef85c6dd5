package io.sluice.state;

import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.SerializerRegistry;
import io.sluice.core.serialization.TypeSerializer;
import java.util.List;

/**
 * Writes a keyed-state snapshot in the canonical {@link KeyedSnapshotFormat}, key group by key
 * group, for any backend: the header when created, then one block per key group with data
 * ({@link #startGroup}, {@link #entries} and {@link #entryWritten} per entry, {@link #finishGroup}),
 * then the end marker ({@link #finish}). A group's block is built in memory (its length precedes
 * it, so that readers can skip it), so memory use is bounded by the largest key group, not by the
 * whole snapshot, when the {@link KeyedSnapshotOutput} drains its buffer after each group.
 *
 * <pre>{@code
 * KeyedSnapshotWriter w = new KeyedSnapshotWriter(out, maxParallelism, range, keySerializer, states);
 * for (int g = range.start(); g <= range.end(); g++) {
 *     w.startGroup(g);
 *     for each state s, for each (key, value) of group g:
 *         keySerializer.serialize(key, w.entries(s)); states.get(s).writeValue(value, w.entries(s)); w.entryWritten(s);
 *     w.finishGroup();
 * }
 * w.finish();
 * }</pre>
 *
 * <p>Threading: one thread at a time (the thread writing the snapshot).
 */
public final class KeyedSnapshotWriter {
    private final KeyedSnapshotOutput output;
    private final DataOutputBuffer out;
    private final DataOutputBuffer[] stateEntries;
    private final int[] entryCounts;
    private final DataOutputBuffer block = new DataOutputBuffer(4096);
    private int group = -1;
    private int lastGroup = -1;
    private boolean finished;

    /** Writes the whole snapshot into {@code out}; see {@link #KeyedSnapshotWriter(KeyedSnapshotOutput, int, KeyGroupRange, TypeSerializer, List)}. */
    public KeyedSnapshotWriter(DataOutputBuffer out, int maxParallelism, KeyGroupRange range,
                               TypeSerializer<?> keySerializer, List<StateMetaInfo> states) {
        this(KeyedSnapshotOutput.inMemory(out), maxParallelism, range, keySerializer, states);
    }

    /** Writes the header: format version, max parallelism, range, key serializer and the states. */
    public KeyedSnapshotWriter(KeyedSnapshotOutput output, int maxParallelism, KeyGroupRange range,
                               TypeSerializer<?> keySerializer, List<StateMetaInfo> states) {
        this.output = output;
        this.out = output.buffer();
        out.writeInt(KeyedSnapshotFormat.MAGIC);
        out.writeInt(KeyedSnapshotFormat.VERSION);
        out.writeInt(maxParallelism);
        out.writeInt(range.start());
        out.writeInt(range.end());
        SerializerRegistry.write(keySerializer, out);
        out.writeVarInt(states.size());
        for (StateMetaInfo metaInfo : states) {
            metaInfo.writeTo(out);
        }
        stateEntries = new DataOutputBuffer[states.size()];
        entryCounts = new int[states.size()];
        for (int s = 0; s < stateEntries.length; s++) {
            stateEntries[s] = new DataOutputBuffer(256);
        }
    }

    /** Starts the block of {@code keyGroup}; groups must come in ascending order. */
    public void startGroup(int keyGroup) {
        if (group >= 0 || finished) {
            throw new IllegalStateException("Key group " + group + " was not finished before key group " + keyGroup);
        }
        if (keyGroup <= lastGroup) {
            throw new IllegalStateException("Key groups must be written in ascending order: " + keyGroup + " after "
                    + lastGroup);
        }
        group = keyGroup;
        for (int s = 0; s < stateEntries.length; s++) {
            stateEntries[s].clear();
            entryCounts[s] = 0;
        }
    }

    /** Where the entries (key, then value) of state {@code stateIndex} in the current group go. */
    public DataOutputBuffer entries(int stateIndex) {
        return stateEntries[stateIndex];
    }

    /** Counts one entry written to {@link #entries(int)} of {@code stateIndex}. */
    public void entryWritten(int stateIndex) {
        entryCounts[stateIndex]++;
    }

    /** Writes the current group's block, if it has any entry. */
    public void finishGroup() {
        if (group < 0) {
            throw new IllegalStateException("No key group was started");
        }
        int states = 0;
        for (int count : entryCounts) {
            if (count > 0) {
                states++;
            }
        }
        if (states > 0) {
            block.clear();
            block.writeVarInt(states);
            for (int s = 0; s < stateEntries.length; s++) {
                if (entryCounts[s] == 0) {
                    continue;
                }
                block.writeVarInt(s);
                block.writeVarInt(entryCounts[s]);
                block.write(stateEntries[s].array(), 0, stateEntries[s].position());
            }
            out.writeInt(group);
            out.writeInt(block.position());
            out.write(block.array(), 0, block.position());
        }
        lastGroup = group;
        group = -1;
        if (states > 0) {
            output.groupWritten();
        }
    }

    /** Writes the end marker. */
    public void finish() {
        if (group >= 0) {
            throw new IllegalStateException("Key group " + group + " was not finished");
        }
        if (!finished) {
            out.writeInt(KeyedSnapshotFormat.END_OF_GROUPS);
            finished = true;
            output.groupWritten();
        }
    }
}
