package io.sluice.taskexecutor;

import io.sluice.api.sink.SinkUnavailableException;
import io.sluice.api.source.SourceReader;
import io.sluice.checkpoint.CheckpointException;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.graph.JobId;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.network.BarrierHandler;
import io.sluice.network.CheckpointBarrier;
import io.sluice.network.RecordWriter;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.IncrementalKeyedStateSnapshot;
import io.sluice.state.KeyedStateSnapshot;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subtask's part in checkpoints: the barrier, the snapshot, the acknowledgement, and the
 * notices back to the operators.
 *
 * <p>A checkpoint, on the task thread ({@link #checkpoint}: a source's trigger from the mailbox, or
 * {@link #onAligned} once an input task's barriers are aligned): the operators prepare their
 * snapshots (a two-phase-commit sink pre-commits), the source position and a copy of the keyed
 * state are taken, and the barrier goes to every output. Then, on the I/O executor
 * ({@link StateUploads}): the keyed-state snapshot is serialized; at most {@code inlineStateThreshold}
 * bytes travel inline in the {@link TaskStateHandle} (restoring it reads nothing from storage),
 * more go to a state file (and, with task-local recovery, a local copy); a snapshot too large to keep
 * in memory is serialized to a local temporary file and streamed from there ({@link SpillingSnapshotOutput},
 * {@link Spill}); the handle is acknowledged
 * to the job master, or the checkpoint declined with the cause (not once the task is ending: its end, which the
 * job master hears, aborts the checkpoint). An upload that failed, or that completed only after its task was
 * cancelled or failed, deletes the files it wrote ({@link UploadedFiles}) instead. A barrier alignment that a newer
 * checkpoint's barrier abandoned ({@link #onAborted}) is declined at once, and so is a checkpoint whose
 * sink could not reach its system at the pre-commit ({@link SinkUnavailableException}): the task keeps
 * running and the sink pre-commits what it kept at the next barrier.
 *
 * <p>Notices from the job master ({@link #notifyCheckpointComplete}, {@link #notifyCheckpointAborted})
 * arrive through the task's mailbox and reach the operators on the task thread.
 *
 * <p>Final checkpoint: once the task's input ended and an operator needs a final checkpoint
 * ({@link #awaitFinalCheckpoint}), checkpoints come only as triggers from the job master; they send no
 * barrier (the outputs have ended), a trigger of a checkpoint the task already took (its barrier came
 * through the input before the end) is ignored, and the {@link FinalCheckpointWait} hears which
 * checkpoint was taken and which completed.
 *
 * <p>Threads: the task thread (checked), except the uploads it starts. Made while {@code DEPLOYING},
 * once the chain, the keyed state backend and the source reader exist.
 */
final class SubtaskCheckpointer implements BarrierHandler {
    private static final Logger LOG = LoggerFactory.getLogger(SubtaskCheckpointer.class);

    /**
     * Who the checkpoints are of, and where their state goes.
     *
     * @param inlineStateThreshold snapshots of at most this many bytes are acknowledged inline; -1: never
     * @param spill                where snapshots too large to keep in memory are written before their upload
     */
    record Target(String taskName, JobId jobId, ExecutionAttemptId attemptId, JobMasterGateway jobMaster,
                  CheckpointStorage storage, SubtaskLocalState localState, int inlineStateThreshold, Spill spill) {
    }

    /**
     * A snapshot of more than {@code threshold} bytes (or than the inline threshold, if higher) is written to a
     * temporary file in {@code directory} while it is serialized, and uploaded from there as a stream, so that
     * its size is not bounded by the heap; smaller ones stay in memory and may be kept as task-local copies.
     */
    record Spill(int threshold, java.nio.file.Path directory) {
        /** Snapshots above this many bytes spill by default. */
        static final int DEFAULT_THRESHOLD = 64 * 1024 * 1024;

        /** The default threshold, in {@code sluice-snapshots} under the JVM's temporary directory. */
        static Spill defaults() {
            return new Spill(DEFAULT_THRESHOLD, java.nio.file.Path.of(System.getProperty("java.io.tmpdir"),
                    "sluice-snapshots"));
        }
    }

    private final Target target;
    private final OperatorChain chain;
    /** {@code null} without keyed state. */
    private final KeyedStateBackend backend;
    /** {@code null} unless the task is a source. */
    private final SourceReader<?> reader;
    private final StateUploads uploads;
    private final TaskThread taskThread;
    private final BooleanSupplier ending;
    /** The newest checkpoint this task took; -1 before the first. */
    private long lastCheckpointId = -1;
    /** Set once the task awaits its final checkpoint; {@code null} before. */
    private FinalCheckpointWait finalCheckpoint;

    /**
     * @param backend   the keyed state backend, or {@code null} without keyed state
     * @param reader    the source reader, or {@code null} for a task that reads other tasks
     * @param ending    whether the task was cancelled, or failed and is closing its state (a failed upload is then
     *                  no news and declines nothing: the task's own end is what the job master hears and the log
     *                  says; a completed one is not acknowledged but deleted)
     */
    SubtaskCheckpointer(Target target, OperatorChain chain, KeyedStateBackend backend, SourceReader<?> reader,
                        StateUploads uploads, TaskThread taskThread, BooleanSupplier ending) {
        this.target = target;
        this.chain = chain;
        this.backend = backend;
        this.reader = reader;
        this.uploads = uploads;
        this.taskThread = taskThread;
        this.ending = ending;
    }

    @Override
    public void onAligned(CheckpointBarrier barrier) throws Exception {
        checkpoint(barrier.checkpointId(), barrier.timestampMillis(), barrier.savepoint());
    }

    @Override
    public void onAborted(long checkpointId) {
        target.jobMaster().declineCheckpoint(target.attemptId(), checkpointId,
                new CheckpointException("Barrier alignment of checkpoint " + checkpointId + " at " + target.taskName()
                        + " was abandoned because a newer checkpoint's barrier arrived"));
    }

    /** The synchronous part of checkpoint {@code checkpointId}; the upload continues on the I/O executor. */
    void checkpoint(long checkpointId, long timestampMillis) throws Exception {
        checkpoint(checkpointId, timestampMillis, false);
    }

    /**
     * The synchronous part of checkpoint {@code checkpointId}, or of a savepoint: a savepoint's keyed state is
     * always a full snapshot in the canonical format ({@link KeyedStateBackend#snapshot}), never RocksDB's files
     * of an incremental checkpoint, so that any backend restores it; and it is never kept as a task-local copy.
     */
    void checkpoint(long checkpointId, long timestampMillis, boolean savepoint) throws Exception {
        taskThread.check("A checkpoint");
        if (finalCheckpoint != null && checkpointId <= lastCheckpointId) {
            LOG.debug("Task {} took checkpoint {} already (its barrier came before the end of the input)",
                    target.taskName(), checkpointId);
            return;
        }
        lastCheckpointId = Math.max(lastCheckpointId, checkpointId);
        try {
            chain.prepareSnapshot(checkpointId);
        } catch (SinkUnavailableException e) {
            declineUnavailableSink(checkpointId, timestampMillis, savepoint, e);
            return;
        }
        byte[] operatorState = chain.snapshotState(checkpointId);
        byte[] position = reader == null ? null : reader.snapshotPosition(checkpointId);
        KeyedStateSnapshot snapshot = backend == null ? null
                : savepoint ? backend.snapshot() : backend.checkpointSnapshot(checkpointId);
        KeyGroupRange range = backend == null ? null : backend.keyGroupRange();
        if (finalCheckpoint == null) {
            broadcastBarrier(checkpointId, timestampMillis, savepoint);
        } else {
            finalCheckpoint.taken(checkpointId); // the outputs have ended: no barrier
        }
        uploads.submit(() -> upload(checkpointId, snapshot, position, range, operatorState, savepoint));
    }

    /**
     * A sink's system did not answer its pre-commit, and the sink kept its records for the next barrier:
     * this checkpoint is declined as a storage failure (not counted towards the tolerable failures) and the
     * task runs on. The barrier still goes downstream, so no task behind this one waits for it in alignment.
     */
    private void declineUnavailableSink(long checkpointId, long timestampMillis, boolean savepoint,
                                        SinkUnavailableException e) throws Exception {
        LOG.warn("Task {} declines checkpoint {} and keeps running: {}", target.taskName(), checkpointId,
                e.getMessage());
        if (finalCheckpoint == null) {
            broadcastBarrier(checkpointId, timestampMillis, savepoint);
        }
        target.jobMaster().declineCheckpoint(target.attemptId(), checkpointId, e);
    }

    private void broadcastBarrier(long checkpointId, long timestampMillis, boolean savepoint) throws Exception {
        CheckpointBarrier barrier = new CheckpointBarrier(checkpointId, timestampMillis, savepoint);
        for (RecordWriter<?> w : chain.outputs().all()) {
            w.broadcastEvent(barrier);
        }
    }

    /**
     * The input ended and the outputs are closed; an operator needs a final checkpoint: from now on
     * checkpoints are the job master's direct triggers. Returns the wait for that checkpoint. Once.
     */
    FinalCheckpointWait awaitFinalCheckpoint() {
        taskThread.check("Awaiting the final checkpoint");
        if (finalCheckpoint != null) {
            throw new IllegalStateException("Task " + target.taskName() + " awaits its final checkpoint already");
        }
        finalCheckpoint = new FinalCheckpointWait(target.taskName());
        return finalCheckpoint;
    }

    /** I/O executor: writes the snapshot and acknowledges it, or declines the checkpoint. */
    private void upload(long checkpointId, KeyedStateSnapshot snapshot, byte[] position, KeyGroupRange range,
                        byte[] operatorState, boolean savepoint) {
        UploadedFiles written = new UploadedFiles();
        try {
            TaskStateHandle handle = snapshot == null
                    ? new TaskStateHandle(target.attemptId().vertexId(), target.attemptId().subtaskIndex(), null, 0,
                            position, null)
                    : write(checkpointId, snapshot, position, range, savepoint, written);
            if (operatorState != null) {
                // The operators' own state (a two-phase-commit sink's committables): inline when small, else a file.
                handle = operatorState.length <= target.inlineStateThreshold()
                        ? handle.withOperatorState(operatorState, null)
                        : handle.withOperatorState(null, written.add(target.storage().writeOperatorState(target.jobId(),
                                checkpointId, target.attemptId().vertexId(), target.attemptId().subtaskIndex(),
                                operatorState)));
            }
            if (ending.getAsBoolean()) {
                // Written, but the task was cancelled or failed meanwhile (an upload blocked in a write does not
                // answer the cancel's interrupt). Its end aborts the checkpoint, so the acknowledgement could not
                // complete it; a job master still running would delete the files as a late upload, but one whose
                // process ended meanwhile (a job-manager failover) never hears of them: they go now.
                LOG.debug("Task {} ended while writing its state for checkpoint {}; deleting what it wrote",
                        target.taskName(), checkpointId);
                written.deleteAfterFailure(target.storage(), target.taskName(), checkpointId);
                return;
            }
            target.jobMaster().acknowledgeCheckpoint(target.attemptId(), checkpointId, handle);
        } catch (Throwable t) {
            if (ending.getAsBoolean()) {
                // Not declined: the job master hears the task's end (cancelled, failed), which aborts the checkpoint
                // as no failure of checkpointing; a decline would report the closed state as a storage failure.
                LOG.debug("Task {} ended while writing its state for checkpoint {}", target.taskName(), checkpointId,
                        t);
            } else {
                LOG.warn("Task {} could not write its state for checkpoint {}", target.taskName(), checkpointId, t);
                target.jobMaster().declineCheckpoint(target.attemptId(), checkpointId, t);
            }
            // Unacknowledged, what this upload wrote is known to nobody else: it goes now, not with the job. After the
            // decline, so that a storage that cannot take the deletes either does not hold the job master's news up.
            written.deleteAfterFailure(target.storage(), target.taskName(), checkpointId);
        }
    }

    private TaskStateHandle write(long checkpointId, KeyedStateSnapshot snapshot, byte[] position, KeyGroupRange range,
                                  boolean savepoint, UploadedFiles written) throws Exception {
        int vertexId = target.attemptId().vertexId();
        int subtask = target.attemptId().subtaskIndex();
        if (snapshot instanceof IncrementalKeyedStateSnapshot incremental) {
            // RocksDB's files: new ones uploaded, those of confirmed checkpoints referred to.
            // With task-local recovery, each uploaded file is also kept locally.
            return TaskStateHandle.incremental(vertexId, subtask, target.localState().upload(checkpointId, incremental,
                    new StorageCheckpointFiles(target.storage(), target.jobId(), checkpointId, vertexId, subtask,
                            written)),
                    position);
        }
        try (SpillingSnapshotOutput out = new SpillingSnapshotOutput(
                Math.max(target.spill().threshold(), target.inlineStateThreshold()), target.spill().directory(),
                target.taskName() + (savepoint ? " (savepoint " : " (checkpoint ") + checkpointId + ")")) {
            snapshot.writeTo(out);
            out.finish();
            if (out.spilled()) {
                // Large: the local file is the state file; published as it is (a hard link on a local file system),
                // and (for a checkpoint) kept as the task-local copy.
                String file = written.add(target.storage().streams().writeFramedTaskState(target.jobId(), checkpointId,
                        vertexId, subtask, out.file()));
                if (!savepoint) {
                    target.localState().storeFile(checkpointId, file, out.file());
                }
                return new TaskStateHandle(vertexId, subtask, file, out.length(), position, range);
            }
            byte[] bytes = out.bytes();
            if (bytes.length <= target.inlineStateThreshold()) {
                // Small: carried in the metadata, which the job manager holds in memory.
                return TaskStateHandle.inline(vertexId, subtask, bytes, position, range);
            }
            String file = written.add(target.storage().writeTaskState(target.jobId(), checkpointId, vertexId, subtask,
                    bytes));
            if (!savepoint) { // a savepoint is never what a failover restores
                target.localState().store(checkpointId, file, bytes);
            }
            return new TaskStateHandle(vertexId, subtask, file, bytes.length, position, range);
        }
    }

    /** Checkpoint {@code checkpointId} completed: the operators hear it (a two-phase-commit sink commits). */
    void notifyCheckpointComplete(long checkpointId) throws Exception {
        taskThread.check("A checkpoint completion notice");
        if (backend != null) {
            backend.notifyCheckpointComplete(checkpointId); // its files may be referred to by later checkpoints
        }
        chain.notifyCheckpointComplete(checkpointId);
        if (reader != null) {
            reader.notifyCheckpointComplete(checkpointId); // e.g. Kafka offsets to the consumer group, for monitoring
        }
        if (finalCheckpoint != null) {
            finalCheckpoint.completed(checkpointId);
        }
    }

    /** Checkpoint {@code checkpointId} will not complete: the operators hear it. */
    void notifyCheckpointAborted(long checkpointId) throws Exception {
        taskThread.check("A checkpoint abort notice");
        chain.notifyCheckpointAborted(checkpointId);
    }
}
