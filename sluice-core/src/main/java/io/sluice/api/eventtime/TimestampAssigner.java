package io.sluice.api.eventtime;

import java.io.Serializable;

/** Extracts the event timestamp (milliseconds) of a record. Called on the task thread, once per record. */
@FunctionalInterface
public interface TimestampAssigner<T> extends Serializable {
    /**
     * @param recordTimestamp the timestamp the record already carries, or {@link Long#MIN_VALUE} if none
     */
    long extractTimestamp(T element, long recordTimestamp);
}
