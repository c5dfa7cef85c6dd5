package io.sluice.checkpoint.coordinator;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.Savepoint;
import io.sluice.checkpoint.SavepointWriter;
import io.sluice.concurrent.Futures;
import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.util.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a fully acknowledged savepoint durable: its state copied into its own directory and its metadata
 * written there ({@link SavepointWriter}), on the I/O executor. Unlike a checkpoint it gets no pointer in the
 * {@link io.sluice.checkpoint.CompletedCheckpointStore}: it is never restored by a failover, never counted among
 * the retained checkpoints and never deleted by their retention. Its files in the job's checkpoint directory
 * (where the tasks wrote them) are discarded once copied, or once it failed.
 *
 * <p>The tasks are not told that a savepoint completed: a two-phase-commit sink commits nothing for it, since
 * a failover restores the latest checkpoint, older than the savepoint, and would replay what it committed. A
 * job started from the savepoint commits its committables when it starts.
 *
 * <p>The timeout of the checkpoint bounds it too: once the metadata write started
 * ({@link PendingCheckpoint#tryStartCommit}) the outcome is the write's; before, an expired savepoint writes
 * no metadata.
 *
 * <p>Threading: {@link #finalizeSavepoint} and the outcome on the job master's main thread (checked); the
 * copying on the I/O executor.
 */
final class SavepointFinalizer {
    private static final Logger LOG = LoggerFactory.getLogger(SavepointFinalizer.class);

    private final JobId jobId;
    private final CheckpointStorage storage;
    private final MainThreadExecutor mainThread;
    private final Executor ioExecutor;
    private final Clock clock;
    private final BooleanSupplier writesAllowed;
    private final CheckpointDiscarder discarder;
    private final PendingCheckpoints pendings;

    SavepointFinalizer(JobId jobId, CheckpointStorage storage, MainThreadExecutor mainThread, Executor ioExecutor,
                       Clock clock, BooleanSupplier writesAllowed, CheckpointDiscarder discarder,
                       PendingCheckpoints pendings) {
        this.jobId = jobId;
        this.storage = storage;
        this.mainThread = mainThread;
        this.ioExecutor = ioExecutor;
        this.clock = clock;
        this.writesAllowed = writesAllowed;
        this.discarder = discarder;
        this.pendings = pendings;
    }

    /** Every task acknowledged savepoint {@code p}: writes it on the I/O executor. */
    void finalizeSavepoint(PendingCheckpoint p) {
        mainThread.assertRunningInMainThread();
        p.startFinalizing();
        CompletedCheckpoint acknowledged = new CompletedCheckpoint(jobId, p.checkpointId, p.triggerTimestampMillis,
                clock.currentTimeMillis(), p.handles(), null);
        CompletableFuture.supplyAsync(() -> {
            if (!writesAllowed.getAsBoolean()) {
                throw new IllegalStateException("this job master is no longer the leader");
            }
            if (!p.tryStartCommit()) {
                throw new IllegalStateException("it expired before its metadata was written");
            }
            return SavepointWriter.write(storage, acknowledged, p.savepoint.targetLocation);
        }, ioExecutor).whenCompleteAsync((savepoint, error) -> onWritten(p, savepoint, error), mainThread);
    }

    private void onWritten(PendingCheckpoint p, Savepoint savepoint, Throwable error) {
        pendings.finalized(p);
        discarder.discardAsync(p.checkpointId); // copied into the savepoint, or of no use: the job's copies go
        if (error != null) {
            Throwable cause = Futures.unwrap(error);
            LOG.warn("Savepoint {} of job {} into {} failed", p.checkpointId, jobId, p.savepoint.targetLocation, cause);
            p.savepoint.fail("job " + jobId, "its state could not be written (" + Causes.rootMessage(cause) + ")");
            return;
        }
        LOG.info("Completed savepoint {} of job {} at {} ({} bytes)", p.checkpointId, jobId, savepoint.path(),
                savepoint.sizeBytes());
        p.savepoint.future.complete(savepoint);
    }
}
