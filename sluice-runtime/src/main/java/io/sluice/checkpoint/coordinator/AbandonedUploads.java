package io.sluice.checkpoint.coordinator;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.SharedStateRegistry;
import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreadExecutor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds and deletes the shared files that tasks uploaded for checkpoints that never completed and that no
 * acknowledgement ever named: a task manager killed while it uploaded, or a job manager that lost leadership
 * while a checkpoint was pending. Nothing else hears of these files ({@link CheckpointDiscarder} deletes the
 * uploads that acknowledgements name, a task deletes what a failed upload wrote), and without this they stayed
 * until the job's checkpoints were discarded: for a job that runs for months, one checkpoint's new table files
 * per crash.
 *
 * <p>Every shared upload's name starts with the id of the checkpoint it was made for
 * ({@link SharedStateRegistry#uploadPrefix}), and a task refers to the uploads of a checkpoint only once that
 * checkpoint completed. So when checkpoint {@code M} completes, the uploads for the ids between the previous
 * completed checkpoint and {@code M} are of checkpoints that will never complete (at most one checkpoint is pending
 * at a time), and any of them that the {@link SharedStateRegistry} does not know is abandoned. What a crash cut off
 * mid-file under those ids, which no listing shows (a hidden temporary file on a local directory, an open multipart
 * upload on S3), is discarded first ({@link CheckpointStorage#discardUnfinishedSharedUploads}). The first range of a
 * job master starts above the newest checkpoint it recovered, so it covers what the previous leader left pending.
 * The listing runs on the I/O executor after the completion, never while a job master recovers; the registry is
 * asked on the main thread; the deletes run on the I/O executor ({@link CheckpointDiscarder#deleteShared}), and
 * until confirmed they are among the registry's deletes that the next metadata names, so a new leader repeats them.
 * A listing or a directory discard that fails is tried again when a later checkpoint completes (which shows
 * that the storage answers again), after 1, 2, 4 … up to {@value #MAX_BACKOFF_COMPLETIONS} completions; at most
 * {@value #MAX_FAILED} failed ranges are kept, and the files of a range dropped from that list stay until the job's
 * checkpoints are discarded.
 *
 * <p>The checkpoints of a previous leader that never completed also leave files in their own directories
 * ({@code chk-<id>/}: the state files of the heap backend, RocksDB's manifest and options), which only that leader
 * would have discarded on their abort. So for the ids below the first checkpoint this job master triggered
 * ({@link #triggered}), and only those, the directories that have files are discarded as well (unless the
 * recovered store retains the id, which it does not above the recovered one). The ids of this job master's own
 * checkpoints are left alone: it discards those it aborts, and a checkpoint whose pointer landed after its
 * timeout, or is in doubt, is retained with its directory. An upload of a
 * process that still runs but was given up (a task manager cut off by a partition) may land after the listing:
 * its acknowledgement, if one comes, removes it ({@link CheckpointDiscarder#discardLateUpload}).
 *
 * <p>Threading: {@link #completed}, {@link #triggered} and {@link #failedRanges} on the job master's main thread
 * (checked); the listings and deletes on the I/O executor.
 */
final class AbandonedUploads {
    private static final Logger LOG = LoggerFactory.getLogger(AbandonedUploads.class);
    /** The most failed ranges kept for another try; the oldest is dropped beyond it. */
    static final int MAX_FAILED = 64;
    /** The most completions a failed range waits for its next try. */
    static final int MAX_BACKOFF_COMPLETIONS = 64;

    /** What is looked at for a range of checkpoint ids. */
    private enum Look {
        UPLOADS("list the shared state files (and discard their unfinished writes)"),
        DIRECTORIES("discard the own directories");

        private final String action;

        Look(String action) {
            this.action = action;
        }
    }

    /** A look that failed; tried again once {@code dueAt} checkpoints completed. */
    private record Failed(Look look, long first, long last, int attempt, long dueAt) {
    }

    private final JobId jobId;
    private final CheckpointStorage storage;
    private final MainThreadExecutor mainThread;
    private final Executor ioExecutor;
    private final SharedStateRegistry sharedState;
    private final Consumer<List<String>> deleter;
    private final LongPredicate retained;
    /** Every id up to this one is a completed checkpoint or was looked at. */
    private long sweptThrough;
    /**
     * The first checkpoint id this job master triggered: the ids below it and above the recovered one are a previous
     * leader's.
     */
    private long firstTriggered = Long.MAX_VALUE;
    /** Checkpoints completed under this job master: the clock of the retries. */
    private long completions;
    private final ArrayDeque<Failed> failed = new ArrayDeque<>();

    /**
     * @param recoveredThrough the highest checkpoint id the job master recovered (the newest retained checkpoint,
     *                         or the one a new job starts from), 0 for none: uploads of ids above it are looked at
     * @param deleter          deletes shared files and confirms them to the registry; run on the I/O executor
     * @param retained         whether the checkpoint store retains a checkpoint id; asked on the main thread
     */
    AbandonedUploads(JobId jobId, CheckpointStorage storage, MainThreadExecutor mainThread, Executor ioExecutor,
                     SharedStateRegistry sharedState, long recoveredThrough, Consumer<List<String>> deleter,
                     LongPredicate retained) {
        this.jobId = jobId;
        this.storage = storage;
        this.mainThread = mainThread;
        this.ioExecutor = ioExecutor;
        this.sharedState = sharedState;
        this.sweptThrough = Math.max(0, recoveredThrough);
        this.deleter = deleter;
        this.retained = retained;
    }

    /** This job master triggered checkpoint {@code checkpointId}. */
    void triggered(long checkpointId) {
        mainThread.assertRunningInMainThread();
        firstTriggered = Math.min(firstTriggered, checkpointId);
    }

    /**
     * Checkpoint {@code checkpointId} completed: the abandoned uploads of the ids before it are deleted, and the looks
     * that failed before and are due are tried again.
     */
    void completed(long checkpointId) {
        mainThread.assertRunningInMainThread();
        completions++;
        retryDue();
        long first = sweptThrough + 1;
        long last = checkpointId - 1;
        sweptThrough = Math.max(sweptThrough, checkpointId);
        if (first > last) {
            return;
        }
        long lastInherited = Math.min(last, firstTriggered - 1);
        if (first <= lastInherited) {
            look(Look.DIRECTORIES, first, lastInherited, 1);
        }
        look(Look.UPLOADS, first, last, 1);
    }

    /** The failed ranges kept for another try (for tests and logs). */
    int failedRanges() {
        mainThread.assertRunningInMainThread();
        return failed.size();
    }

    private void retryDue() {
        List<Failed> due = new ArrayList<>();
        for (Iterator<Failed> it = failed.iterator(); it.hasNext(); ) {
            Failed f = it.next();
            if (f.dueAt() <= completions) {
                due.add(f);
                it.remove();
            }
        }
        for (Failed f : due) {
            look(f.look(), f.first(), f.last(), f.attempt() + 1);
        }
    }

    private void look(Look look, long first, long last, int attempt) {
        ioExecutor.execute(() -> {
            if (look == Look.UPLOADS) {
                listUploads(first, last, attempt);
            } else {
                discardInherited(first, last, attempt);
            }
        });
    }

    /**
     * On the I/O executor: lists the uploads of checkpoints that did not complete, and discards the writes of them
     * that a crash cut off mid-file (no listing shows those).
     */
    private void listUploads(long first, long last, int attempt) {
        List<String> found;
        try {
            int unfinished = storage.discardUnfinishedSharedUploads(jobId, first, last);
            if (unfinished > 0) {
                LOG.info("Job {}: discarded {} unfinished write(s) of shared state files for checkpoints {} to {},"
                        + " which did not complete (an upload a crash cut off mid-file)", jobId, unfinished, first,
                        last);
            }
            found = storage.listSharedUploads(jobId, first, last);
        } catch (RuntimeException e) {
            failedOnIo(Look.UPLOADS, first, last, attempt, e);
            return;
        }
        if (found.isEmpty()) {
            return;
        }
        toMainThread(() -> deleteAbandoned(found, first, last), "the abandoned uploads of checkpoints {} to {} were not"
                + " looked at", first, last);
    }

    /** On the I/O executor: a look failed; it is kept, on the main thread, for another try. */
    private void failedOnIo(Look look, long first, long last, int attempt, RuntimeException cause) {
        long wait = Math.min(1L << Math.min(attempt - 1, 30), MAX_BACKOFF_COMPLETIONS);
        LOG.warn("Could not {} of job {}'s checkpoints {} to {}, which did not complete, in {} (attempt {}): {}; tried"
                + " again when {} more checkpoint(s) completed", look.action, jobId, first, last, storage.location(),
                attempt, cause.toString(), wait);
        toMainThread(() -> keep(new Failed(look, first, last, attempt, completions + wait)), "checkpoints {} to {} are"
                + " not tried again", first, last);
    }

    /** From the I/O executor: runs {@code action} on the main thread, unless the job master ended (then logged). */
    private void toMainThread(Runnable action, String ifEnded, long first, long last) {
        try {
            mainThread.execute(action);
        } catch (RuntimeException e) {
            LOG.debug("Job {}: the job master ended; " + ifEnded, jobId, first, last);
        }
    }

    private void keep(Failed f) {
        if (failed.size() == MAX_FAILED) {
            Failed dropped = failed.poll();
            LOG.warn("Job {}: no more tries to {} of checkpoints {} to {} after {} attempt(s) ({} other failed ranges"
                    + " wait): their files stay in {} until the job's checkpoints are discarded", jobId,
                    dropped.look().action, dropped.first(), dropped.last(), dropped.attempt(), MAX_FAILED,
                    storage.location());
        }
        failed.add(f);
    }

    /** On the I/O executor: finds the directories of a previous leader's checkpoints that never completed. */
    private void discardInherited(long first, long last, int attempt) {
        List<Long> withFiles;
        try {
            withFiles = storage.checkpointsWithFiles(jobId, first, last);
        } catch (RuntimeException e) {
            failedOnIo(Look.DIRECTORIES, first, last, attempt, e);
            return;
        }
        if (withFiles.isEmpty()) {
            return;
        }
        toMainThread(() -> {
            List<Long> ids = withFiles.stream().filter(id -> !retained.test(id)).toList();
            if (ids.isEmpty()) {
                return;
            }
            LOG.info("Job {}: discarding checkpoint(s) {}, which a previous leader triggered and which did not"
                    + " complete (their own directories in {})", jobId, ids, storage.location());
            ioExecutor.execute(() -> ids.forEach(id -> discardDirectory(id, attempt)));
        }, "the directories of checkpoints {} to {} were not looked at", first, last);
    }

    private void discardDirectory(long checkpointId, int attempt) {
        try {
            storage.discard(jobId, checkpointId);
        } catch (RuntimeException e) {
            failedOnIo(Look.DIRECTORIES, checkpointId, checkpointId, attempt, e);
        }
    }

    private void deleteAbandoned(List<String> found, long first, long last) {
        List<String> referenced = found.stream().filter(sharedState::isReferenced).toList();
        if (!referenced.isEmpty()) {
            // A checkpoint whose pointer landed after its timeout, or is in doubt, is retained without counting as
            // completed; its files are registered. No other registered checkpoint refers to these ids' uploads.
            LOG.info("Job {}: {} shared state file(s) uploaded for checkpoints {} to {} are kept: a retained checkpoint"
                    + " (persisted after its timeout, or in doubt) refers to them", jobId, referenced.size(), first,
                    last);
        }
        // Files already being deleted (the uploads acknowledgements named) are left to that delete.
        List<String> abandoned = sharedState.abandoned(found);
        if (abandoned.isEmpty()) {
            return;
        }
        LOG.info("Job {}: deleting {} shared state file(s) uploaded for checkpoints {} to {}, which did not complete,"
                + " that no acknowledgement named (an upload a crash cut short)", jobId, abandoned.size(), first, last);
        ioExecutor.execute(() -> deleter.accept(abandoned));
    }
}
