package io.sluice.dispatcher;

import io.sluice.graph.JobId;
import io.sluice.jobmaster.runner.JobManagerRunner;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The Dispatcher's jobs: one {@link JobRecord} per job id, and the questions asked across them.
 *
 * <p>Threading: the Dispatcher's main thread only (the owner checks it at every entry point).
 */
final class JobTable {
    private final Map<JobId, JobRecord> records = new LinkedHashMap<>();
    private long sequence;

    /** The record of {@code id}, or null. */
    JobRecord get(JobId id) {
        return records.get(id);
    }

    /** The record of {@code id}, created (with no stage) if there is none. */
    JobRecord getOrCreate(JobId id) {
        return records.computeIfAbsent(id, JobRecord::new);
    }

    /** Moves {@code record} to {@code next} (null: forgets the stage); drops a record left with nothing. */
    void enter(JobRecord record, JobExecution next) {
        record.enter(next, ++sequence);
        forgetIfIdle(record);
    }

    void forgetIfIdle(JobRecord record) {
        if (record.isIdle()) {
            records.remove(record.id(), record);
        }
    }

    /** The stage of {@code id}, if it has one. */
    Optional<JobExecution> execution(JobId id) {
        JobRecord r = records.get(id);
        return r == null ? Optional.empty() : Optional.ofNullable(r.execution());
    }

    /** Whether {@code id} runs, is being recovered, or is being submitted here. */
    boolean isActive(JobId id) {
        JobRecord r = records.get(id);
        return r != null && r.isActive();
    }

    /** The records in stage {@code type}, in the order they entered it. */
    <T extends JobExecution> List<JobRecord> inStage(Class<T> type) {
        List<JobRecord> out = new ArrayList<>();
        for (JobRecord r : records.values()) {
            if (type.isInstance(r.execution())) {
                out.add(r);
            }
        }
        out.sort(Comparator.comparingLong(JobRecord::enteredAt));
        return out;
    }

    /** The runners of the jobs running here. */
    List<JobManagerRunner> runners() {
        List<JobManagerRunner> out = new ArrayList<>();
        for (JobRecord r : inStage(JobExecution.Running.class)) {
            out.add(((JobExecution.Running) r.execution()).runner());
        }
        return out;
    }

    /** Every record matching {@code filter} (a copy: the caller may change the table meanwhile). */
    List<JobRecord> matching(Predicate<JobRecord> filter) {
        return records.values().stream().filter(filter).toList();
    }
}
