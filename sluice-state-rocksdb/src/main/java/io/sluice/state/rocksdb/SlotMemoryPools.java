package io.sluice.state.rocksdb;

import java.util.HashMap;
import java.util.Map;

/**
 * The {@link SlotMemory} of each slot of one task executor that runs RocksDB state, created when the
 * first backend of the slot opens and closed when the last one closes (reference counts), so that
 * the memory of a slot whose tasks ended is given back at once.
 *
 * <p>Threading: thread-safe (task threads open and close backends).
 */
final class SlotMemoryPools {
    private final long budgetPerSlot;
    private final double writeBufferRatio;
    private final double highPriorityPoolRatio;
    /** Guarded by {@code this}. */
    private final Map<String, Counted> bySlot = new HashMap<>();
    /** Guarded by {@code this}. */
    private boolean closed;

    private static final class Counted {
        final SlotMemory memory;
        int users;

        Counted(SlotMemory memory) {
            this.memory = memory;
        }
    }

    SlotMemoryPools(long budgetPerSlot, double writeBufferRatio, double highPriorityPoolRatio) {
        this.budgetPerSlot = budgetPerSlot;
        this.writeBufferRatio = writeBufferRatio;
        this.highPriorityPoolRatio = highPriorityPoolRatio;
    }

    /** The memory of {@code slot}, for one more backend; give it back with {@link #release}. */
    synchronized SlotMemory acquire(String slot) {
        if (closed) {
            throw new IllegalStateException("The RocksDB state backend of this task executor is closed");
        }
        Counted c = bySlot.computeIfAbsent(slot,
                s -> new Counted(new SlotMemory(s, budgetPerSlot, writeBufferRatio, highPriorityPoolRatio)));
        c.users++;
        return c.memory;
    }

    /** One backend of the slot closed; the last one closes the slot's memory. */
    synchronized void release(SlotMemory memory) {
        Counted c = bySlot.get(memory.slot());
        if (c == null || c.memory != memory) {
            throw new IllegalStateException("The memory of slot " + memory.slot() + " was released more often than acquired");
        }
        if (--c.users == 0) {
            bySlot.remove(memory.slot());
            c.memory.close();
        }
    }

    /** The slots with open backends now (for tests and logs). */
    synchronized int openSlots() {
        return bySlot.size();
    }

    /** No new slot memory after this; memory still in use goes when its last backend closes. */
    synchronized void close() {
        closed = true;
    }
}
