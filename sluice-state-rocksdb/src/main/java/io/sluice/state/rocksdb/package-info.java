/**
 * Keyed state in embedded RocksDB ({@code state.backend: rocksdb}): the backend per task executor
 * with its per-slot native memory ({@code RocksDbStateBackend}, {@code SlotMemory}), the keyed state
 * of one task ({@code RocksDbKeyedStateBackend}: value, list and map states in column families, keys
 * laid out by key group; its native instance, key layout, state registry, snapshots, restore and
 * metrics in classes of their own) and its full and incremental snapshots.
 *
 * <p>The only package of sluice-state-rocksdb. Uses {@code io.sluice.state}, {@code api.state},
 * {@code api.errors}, {@code core.serialization}, {@code config} and {@code util} of sluice-core, and
 * RocksDB's Java binding; nothing of sluice-runtime (the runtime finds it by name through
 * {@code io.sluice.state.StateBackendFactory}).
 */
package io.sluice.state.rocksdb;
