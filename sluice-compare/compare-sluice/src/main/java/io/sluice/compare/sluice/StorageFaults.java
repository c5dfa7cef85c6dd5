package io.sluice.compare.sluice;

import io.sluice.storage.BlobStore;
import io.sluice.storage.FaultInjectingBlobStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/**
 * The checkpoint-storage faults of one cluster: its {@link #decorator()} (for
 * {@code LocalCluster.Builder.blobStoreDecorator}) wraps every blob store the cluster opens in a
 * {@link FaultInjectingBlobStore}, and the switches here apply to the stores already opened and to
 * those opened later. A cluster opens a checkpoint location's store lazily, at its first use, so a
 * job manager that must meet stalled or slow storage from its very first read gets the fault set
 * here before it is built.
 *
 * <p>Threading: thread-safe; the switches may be flipped from any thread.
 */
final class StorageFaults {
    private final List<FaultInjectingBlobStore> stores = new CopyOnWriteArrayList<>();
    private Duration readLatency = Duration.ZERO; // guarded by this
    private boolean hanging; // guarded by this

    /** Wraps each opened store; the current faults apply to it from the start. */
    UnaryOperator<BlobStore> decorator() {
        return raw -> {
            FaultInjectingBlobStore store = new FaultInjectingBlobStore(raw);
            synchronized (this) {
                store.setReadLatency(readLatency);
                if (hanging) {
                    store.hang();
                }
                stores.add(store);
            }
            return store;
        };
    }

    /** Every blob read ({@code get}: metadata or a state file) first waits {@code latency}. */
    synchronized void setReadLatency(Duration latency) {
        readLatency = latency;
        stores.forEach(s -> s.setReadLatency(latency));
    }

    /** Every storage call blocks (reads, writes, listings, deletes) until {@link #heal()}. */
    synchronized void hang() {
        hanging = true;
        stores.forEach(FaultInjectingBlobStore::hang);
    }

    /** Removes every fault and releases the blocked calls. */
    synchronized void heal() {
        hanging = false;
        readLatency = Duration.ZERO;
        stores.forEach(FaultInjectingBlobStore::heal);
    }

    /** Storage calls blocked by {@link #hang()} right now. */
    int blockedCalls() {
        return stores.stream().mapToInt(FaultInjectingBlobStore::blockedCalls).sum();
    }
}
