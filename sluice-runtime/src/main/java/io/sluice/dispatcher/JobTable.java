package io.sluice.dispatcher;

import io.sluice.graph.JobId;
import io.sluice.jobmaster.runner.JobManagerRunner;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The Dispatcher's jobs: one {@link JobRecord} per job id, and the questions asked across them.
 *
 * <p>Every change of a job's stage ({@link #enter}, {@link #update}) is also published, as one
 * immutable {@link Published} value per job in a concurrent map, so the job list and status calls
 * read where each job stands from any thread, without the Dispatcher's main thread.
 *
 * <p>Threading: the Dispatcher's main thread only (the owner checks it at every entry point), except
 * {@link #published(JobId)} and {@link #publishedInStage(Class)}: any thread.
 */
final class JobTable {
    /** One job's stage as the main thread last set it. Immutable. */
    record Published(JobId id, JobExecution execution, long enteredAt) {
    }

    private final Map<JobId, JobRecord> records = new LinkedHashMap<>();
    /** Written only on the main thread, read from any thread. */
    private final ConcurrentHashMap<JobId, Published> published = new ConcurrentHashMap<>();
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
        publish(record);
        forgetIfIdle(record);
    }

    /** Replaces {@code record}'s stage value without moving the job in the list (the same stage, updated). */
    void update(JobRecord record, JobExecution same) {
        record.update(same);
        publish(record);
    }

    private void publish(JobRecord record) {
        if (record.execution() == null) {
            published.remove(record.id());
        } else {
            published.put(record.id(), new Published(record.id(), record.execution(), record.enteredAt()));
        }
    }

    /** Where {@code id} stands as last published, or null. Any thread. */
    Published published(JobId id) {
        return published.get(id);
    }

    /** The published jobs in stage {@code type}, in the order they entered it. Any thread. */
    <T extends JobExecution> List<Published> publishedInStage(Class<T> type) {
        List<Published> out = new ArrayList<>();
        for (Published p : published.values()) {
            if (type.isInstance(p.execution())) {
                out.add(p);
            }
        }
        out.sort(Comparator.comparingLong(Published::enteredAt));
        return out;
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
