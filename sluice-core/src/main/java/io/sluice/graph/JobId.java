package io.sluice.graph;

import java.io.Serializable;
import java.util.UUID;

/** Identifies a job across restarts and job-manager failovers: 32 lowercase hex digits. */
public record JobId(String value) implements Serializable, Comparable<JobId> {
    public JobId {
        if (value == null || !value.matches("[0-9a-f]{32}")) {
            throw new IllegalArgumentException("A job id is 32 lowercase hex digits, not '" + value + "'");
        }
    }

    public static JobId generate() {
        return new JobId(UUID.randomUUID().toString().replace("-", ""));
    }

    public static JobId of(String value) {
        return new JobId(value);
    }

    @Override
    public int compareTo(JobId o) {
        return value.compareTo(o.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
