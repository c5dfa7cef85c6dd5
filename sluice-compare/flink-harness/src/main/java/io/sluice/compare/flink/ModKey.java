package io.sluice.compare.flink;

import org.apache.flink.api.java.functions.KeySelector;

/** Key of a number in the counting job: the number modulo the key count (the same on every Flink version). */
final class ModKey implements KeySelector<Long, Long> {
    private static final long serialVersionUID = 1L;
    private final int keys;

    ModKey(int keys) {
        this.keys = keys;
    }

    @Override
    public Long getKey(Long value) {
        return value % keys;
    }
}
