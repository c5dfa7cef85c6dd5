package io.sluice.state.ttl;

/**
 * One state with a time-to-live as its backend's background clean-up sees it: a cursor over its
 * entries that removes expired values. Implemented by each backend for its own layout.
 *
 * <p>Threading: the task thread only (the clean-up runs between records).
 */
@FunctionalInterface
public interface TtlCleanupTarget {
    /**
     * Looks at up to {@code entries} entries (keys; for a map state, map entries) from where the
     * previous call stopped, starting over after the last one, and removes the values (list elements,
     * map entries) stamped at or before {@code cutoffMillis}; a key left without values goes.
     *
     * @return the values removed
     */
    int removeExpired(int entries, long cutoffMillis);
}
