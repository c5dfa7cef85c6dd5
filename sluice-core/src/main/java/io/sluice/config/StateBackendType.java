package io.sluice.config;

/** The values of {@link StateBackendOptions#BACKEND}: where keyed state lives, written {@code heap}, {@code rocksdb}. */
public enum StateBackendType {
    /** On the Java heap, as objects: fastest, bounded by the heap. */
    HEAP,
    /** In an embedded RocksDB per task, on local disk with a bounded native cache: state larger than memory. */
    ROCKSDB;

    /** The name the backend is registered under ({@code io.sluice.state.StateBackendFactory#name}). */
    public String backendName() {
        return OptionType.enumValueName(this);
    }
}
