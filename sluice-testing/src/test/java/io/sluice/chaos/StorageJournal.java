package io.sluice.chaos;

import io.sluice.storage.BlobStore;
import io.sluice.storage.ForwardingBlobStore;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/**
 * What a chaos run did to checkpoint storage that decides whether a checkpoint can be restored:
 * every {@code _metadata} written and every deletion, with the wall-clock time, the thread and the
 * Sluice method that asked for it. A failing run prints the entries of the jobs it names, so that a
 * pointer to deleted files says who deleted them and when (the ZooKeeper run with seed 18 once ended
 * with a pointer to chk-1 whose files were gone, and nothing said why).
 *
 * <p>Threading: thread-safe; {@link #decorator()}'s stores may be called from any thread.
 */
final class StorageJournal {
    /** One recorded operation. */
    record Entry(long wallMillis, String op, String key, String thread, String caller) {
        @Override
        public String toString() {
            return java.time.Instant.ofEpochMilli(wallMillis) + " " + op + " " + key + " by " + caller + " on " + thread;
        }
    }

    private static final StackWalker WALKER = StackWalker.getInstance();
    private final List<Entry> entries = new CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicLong changelogSegments = new java.util.concurrent.atomic.AtomicLong();

    /** RocksDB changelog segments written (uploads whose path names one), over the whole run. */
    long changelogSegmentsWritten() {
        return changelogSegments.get();
    }

    private void countSegment(String path) {
        if (path.contains("changelog-")) {
            changelogSegments.incrementAndGet();
        }
    }

    /** Wraps each store the cluster opens so that its metadata writes and deletions are recorded here. */
    UnaryOperator<BlobStore> decorator() {
        return Recording::new;
    }

    /** The entries whose key lies under {@code prefix} (a job id, or {@code <jobId>/chk-<n>}), in order. */
    List<Entry> under(String prefix) {
        return entries.stream().filter(e -> e.key().startsWith(prefix)).toList();
    }

    private void record(String op, String key) {
        entries.add(new Entry(System.currentTimeMillis(), op, key, Thread.currentThread().getName(), caller()));
    }

    /** The first Sluice frame outside the storage layer: the component that wrote or deleted. */
    private static String caller() {
        return WALKER.walk(frames -> frames
                .filter(f -> f.getClassName().startsWith("io.sluice.")
                        && !f.getClassName().startsWith("io.sluice.storage.")
                        && !f.getClassName().startsWith("io.sluice.chaos.")
                        && !f.getClassName().equals("io.sluice.checkpoint.CheckpointStorage"))
                .findFirst()
                .map(f -> f.getClassName().substring(f.getClassName().lastIndexOf('.') + 1) + "." + f.getMethodName()
                        + ":" + f.getLineNumber())
                .orElse("?"));
    }

    private final class Recording extends ForwardingBlobStore {
        Recording(BlobStore delegate) {
            super(delegate);
        }

        @Override
        public void put(String path, byte[] data) {
            delegate.put(path, data);
            countSegment(path);
            if (path.endsWith("/_metadata")) {
                record("wrote", path);
            }
        }

        @Override
        public void put(String path, io.sluice.storage.BlobContent content) {
            delegate.put(path, content);
            countSegment(path);
        }

        @Override
        public void delete(String path) {
            delegate.delete(path);
            record("deleted", path);
        }

        @Override
        public void deleteRecursively(String prefix) {
            delegate.deleteRecursively(prefix);
            record("deleted everything under", prefix);
        }
    }
}
