package io.sluice.ha.embedded;

import io.sluice.api.eventtime.TimestampAssigner;
import io.sluice.api.functions.KeySelector;
import io.sluice.api.functions.ReduceFunction;

/**
 * The user functions of the job whose HA data {@code legacy-858f2ac/} holds: compiled, unchanged,
 * into the program that wrote that data with the code of commit {@code 858f2ac} (see the
 * README there), so that the job graph's user code deserializes here. Names none of the classes
 * that moved since.
 */
final class LegacyJobFunctions {
    private LegacyJobFunctions() {}

    /** Even and odd values. */
    record Parity() implements KeySelector<Long, Long> {
        @Override
        public Long getKey(Long value) {
            return value % 2;
        }
    }

    /** Sums the values of a window. */
    record Sum() implements ReduceFunction<Long> {
        @Override
        public Long reduce(Long accumulated, Long value) {
            return accumulated + value;
        }
    }

    /** A value is its own event time. */
    record ValueAsTimestamp() implements TimestampAssigner<Long> {
        @Override
        public long extractTimestamp(Long element, long recordTimestamp) {
            return element;
        }
    }
}
