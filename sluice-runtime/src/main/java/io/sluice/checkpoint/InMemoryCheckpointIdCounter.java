package io.sluice.checkpoint;

import java.util.concurrent.atomic.AtomicLong;

/** A counter that lives as long as its job master; starts after the latest recovered checkpoint. */
public final class InMemoryCheckpointIdCounter implements CheckpointIdCounter {
    private final AtomicLong next;

    public InMemoryCheckpointIdCounter(long firstId) {
        this.next = new AtomicLong(firstId);
    }

    @Override
    public long getAndIncrement() {
        return next.getAndIncrement();
    }

    @Override
    public long peek() {
        return next.get();
    }
}
