package io.sluice.operators;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.Committer;
import io.sluice.api.sink.SinkUnavailableException;
import io.sluice.api.sink.SinkWriter;
import io.sluice.api.sink.TwoPhaseCommitSink;
import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.TypeSerializer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link TwoPhaseCommitSink} in a task: its writer on the task thread, its committer on a commit
 * thread of its own ({@link PendingCommits}). Pre-commits in {@link #prepareSnapshot}; the committables
 * not yet committed are this operator's state ({@link #snapshotState}); commits when the checkpoint
 * completes; on restore commits the restored checkpoint's committables again (idempotently) and hands
 * them to the new writer, which aborts whatever was begun after that checkpoint.
 *
 * <p>End of a bounded input. With checkpoints, {@link #finish} pre-commits the writer's last output
 * ({@link SinkWriter#endOfInput}) but commits nothing: a subtask that committed its last output at once
 * and finished would write it again if another subtask failed before a checkpoint recorded this one as
 * finished (the job restores a checkpoint where it still ran). Instead the operator
 * {@linkplain #needsFinalCheckpoint needs a final checkpoint}: the next checkpoint's
 * {@link #prepareSnapshot} makes the last committables part of it (the writer is not asked to pre-commit
 * again), its completion commits them, and {@link #finishAfterFinalCheckpoint} waits for the commits before
 * the task reports {@code FINISHED}. A failure or cancel meanwhile commits nothing; the restore commits
 * what the restored checkpoint holds, as always. A last pre-commit the sink's system did not answer
 * ({@link SinkUnavailableException}) is asked again at the final checkpoint, which is declined until it
 * succeeds. Without checkpoints there is no exactly-once: the last output is committed in {@link #finish}.
 *
 * <p>State format (version 1): {@code int version, int count, count × (long checkpointId, bytes
 * committable)}, the committable written by the sink's committable serializer.
 *
 * <p>Threading: task thread only, except {@link #commitStats}, which any thread may read.
 */
public final class TwoPhaseCommitSinkOperator<IN, C> implements StreamOperator<IN> {
    /** How often an idle task looks for a commit that failed for good while commits are pending. */
    static final long FATAL_ERROR_CHECK_MILLIS = 100;
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(TwoPhaseCommitSinkOperator.class);
    static final int STATE_VERSION = 1;

    private final TwoPhaseCommitSink<IN, C> sink;
    private final String name;

    private transient SinkWriter<IN, C> writer;
    private transient Committer<C> committer;
    private transient PendingCommits<C> commits;
    private transient long restoredCheckpointId = -1;
    /** Whether the job takes checkpoints (known at open): then the last output waits for a final checkpoint. */
    private transient boolean checkpointing;
    /** Set by {@link #finish}: the writer's input ended and it is not asked to pre-commit again. */
    private transient boolean inputEnded;
    /**
     * Set by {@link #finish} when the sink's system did not answer the last pre-commit
     * ({@link SinkUnavailableException}): the next checkpoint's {@link #prepareSnapshot} asks again.
     */
    private transient boolean lastPreCommitDeferred;

    public TwoPhaseCommitSinkOperator(TwoPhaseCommitSink<IN, C> sink, String name) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.name = name;
    }

    @Override
    public void open(OperatorContext context) throws Exception {
        RuntimeContext rc = context.runtimeContext();
        checkpointing = rc.checkpointInterval() != null;
        TypeSerializer<C> serializer = sink.committableSerializer();
        List<PendingCommits.Entry<C>> restored = new ArrayList<>();
        OperatorStateRestore restore = context.restoredState();
        if (restore != null) {
            restoredCheckpointId = restore.checkpointId();
            for (byte[] state : restore.states()) {
                restored.addAll(decode(state, serializer, name));
            }
        }
        String owner = name + " (" + (rc.subtaskIndex() + 1) + "/" + rc.parallelism() + ")";
        // the committer is the job's code: its thread has the job's class loader (the task thread's)
        ScheduledExecutorService commitThread = Executors.newSingleThreadScheduledExecutor(
                DaemonThreadFactory.named("sluice-commit-" + owner)
                        .withContextClassLoader(Thread.currentThread().getContextClassLoader()));
        committer = sink.createCommitter(rc);
        commits = new PendingCommits<>(owner, committer, PendingCommits.CommitThread.of(commitThread), context.clock());
        List<C> restoredCommittables = new ArrayList<>(restored.size());
        for (PendingCommits.Entry<C> e : restored) {
            restoredCommittables.add(e.committable());
        }
        writer = sink.createWriter(rc, restoredCommittables);
        if (restore != null) {
            commits.restore(restore.checkpointId(), restored);
        }
    }

    @Override
    public void processElement(IN value) throws Exception {
        writer.write(value);
    }

    @Override
    public void processWatermark(long watermark) {}

    @Override
    public void processIdleStatus(boolean idle) {}

    @Override
    public void advanceProcessingTime(long nowMillis) {
        checkNoFatalCommitError();
    }

    /**
     * While commits are pending (they run off the task thread), every {@value #FATAL_ERROR_CHECK_MILLIS} ms, so a
     * commit that failed for good fails an idle task promptly too; nothing otherwise.
     */
    @Override
    public long nextProcessingTimeMillis(long nowMillis) {
        if (commits == null) {
            return Long.MAX_VALUE;
        }
        if (commits.fatalError() != null) {
            return nowMillis;
        }
        return commits.hasPending() ? nowMillis + FATAL_ERROR_CHECK_MILLIS : Long.MAX_VALUE;
    }

    @Override
    public void prepareSnapshot(long checkpointId) throws Exception {
        checkNoFatalCommitError();
        if (inputEnded) {
            if (lastPreCommitDeferred) {
                // throws SinkUnavailableException again while the system does not answer: this checkpoint is
                // declined and the next one asks again
                commits.addFinal(writer.endOfInput());
                lastPreCommitDeferred = false;
            }
            commits.assignFinalTo(checkpointId); // the final checkpoint: it covers the last output
        } else {
            commits.add(checkpointId, writer.preCommit(checkpointId));
        }
    }

    @Override
    public byte[] snapshotState(long checkpointId) {
        return encode(commits.snapshot(), sink.committableSerializer());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        commits.commitUpTo(checkpointId);
        if (checkpointId > restoredCheckpointId) {
            writer.checkpointCompleted(checkpointId);
        }
    }

    /** Pre-commits the last output; commits it only without checkpoints (see the class doc). */
    @Override
    public void finish() throws Exception {
        checkNoFatalCommitError();
        inputEnded = true;
        if (checkpointing) {
            try {
                commits.addFinal(writer.endOfInput());
            } catch (SinkUnavailableException e) {
                // the writer kept its last output: the final checkpoint pre-commits it (see prepareSnapshot)
                lastPreCommitDeferred = true;
                LOG.warn("{}: the last pre-commit at the end of the input waits for the final checkpoint: {}", name,
                        e.getMessage());
            }
        } else {
            commits.add(Long.MAX_VALUE, writer.endOfInput());
            commits.commitAllAndWait();
        }
    }

    /**
     * With checkpoints, while anything is not committed yet: the last output, or earlier committables whose
     * checkpoint has not completed. With nothing pending every output of this subtask is committed, which
     * only a completed checkpoint allows, so a restore can replay nothing of it.
     */
    @Override
    public boolean needsFinalCheckpoint() {
        return checkpointing && (lastPreCommitDeferred || commits.hasPending());
    }

    /** The final checkpoint completed: waits until everything pending (all of it due now) is committed. */
    @Override
    public void finishAfterFinalCheckpoint() throws Exception {
        commits.commitAllAndWait();
    }

    @Override
    public void close() throws Exception {
        Exception first = null;
        for (AutoCloseable c : new AutoCloseable[] {commits, writer, committer}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** The state of this subtask's commits; {@link CommitStats#NONE} before open. Any thread. */
    public CommitStats commitStats() {
        PendingCommits<C> c = commits;
        return c == null ? CommitStats.NONE : c.stats();
    }

    @Override
    public String name() {
        return name;
    }

    private void checkNoFatalCommitError() {
        Throwable fatal = commits == null ? null : commits.fatalError();
        if (fatal != null) {
            throw new IllegalStateException(name + ": a commit failed with an error no retry can fix: " + fatal, fatal);
        }
    }

    static <C> byte[] encode(List<PendingCommits.Entry<C>> entries, TypeSerializer<C> serializer) {
        DataOutputBuffer out = new DataOutputBuffer(64);
        out.writeInt(STATE_VERSION);
        out.writeInt(entries.size());
        DataOutputBuffer one = new DataOutputBuffer(64);
        for (PendingCommits.Entry<C> e : entries) {
            out.writeLong(e.checkpointId());
            one.clear();
            serializer.serialize(e.committable(), one);
            out.writeBytes(java.util.Arrays.copyOf(one.array(), one.position()));
        }
        return out.toByteArray();
    }

    static <C> List<PendingCommits.Entry<C>> decode(byte[] state, TypeSerializer<C> serializer, String name) {
        DataInputBuffer in = new DataInputBuffer(state);
        int version = in.readInt();
        if (version != STATE_VERSION) {
            throw new IllegalStateException(name + ": the checkpoint holds committables in format version " + version
                    + ", this build reads version " + STATE_VERSION + "; restore with the Sluice version that wrote it");
        }
        int count = in.readInt();
        List<PendingCommits.Entry<C>> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long checkpointId = in.readLong();
            byte[] bytes = in.readBytes();
            out.add(new PendingCommits.Entry<>(checkpointId, serializer.deserialize(new DataInputBuffer(bytes)), 0));
        }
        return out;
    }
}
