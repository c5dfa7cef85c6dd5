package io.sluice.api.sink;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.core.serialization.TypeSerializer;
import java.io.Serializable;
import java.util.List;

/**
 * A sink whose output becomes visible exactly once, by a two-phase commit bound to checkpoints.
 *
 * <p>The contract, per parallel subtask:
 * <ol>
 *   <li>A {@link SinkWriter} receives the records. At a checkpoint's barrier it <em>pre-commits</em>
 *       ({@link SinkWriter#preCommit}): it makes what it wrote since the previous barrier durable but not
 *       yet visible, and describes it by committables.</li>
 *   <li>The committables are part of the checkpoint (written with {@link #committableSerializer()}),
 *       together with every committable of earlier checkpoints not yet committed.</li>
 *   <li>Once the job master reports the checkpoint complete, a {@link Committer} makes them visible,
 *       off the task thread, in checkpoint order, retried with backoff while it throws.</li>
 *   <li>After any restore (a task failover, a job-manager failover, {@code checkpoints.restore-from}) the
 *       restored checkpoint's committables are committed again (so a commit must be idempotent), and
 *       the writer is created knowing them, so that it aborts or removes whatever the previous attempt
 *       began after that checkpoint ({@link #createWriter}).</li>
 * </ol>
 * A reader of the sink's output thus sees exactly the records that went into completed checkpoints,
 * each once. At the end of a bounded input the writer pre-commits its last records
 * ({@link SinkWriter#endOfInput}); with checkpoints the subtask then awaits a final checkpoint, which the
 * job master triggers at it directly, and its last committables are committed once that checkpoint
 * completed, before the task finishes: a failure elsewhere meanwhile commits nothing of them, and the
 * restored job writes and commits them once. Without checkpoints they are committed at once (no
 * exactly-once without checkpoints).
 *
 * <p>Instances travel inside the job graph (Java serialization); {@link #createWriter} and
 * {@link #createCommitter} run on the subtask's task thread when it opens.
 *
 * @param <IN> the records
 * @param <C>  what one pre-commit leaves to commit (a file name, a transaction, a batch of records)
 */
public interface TwoPhaseCommitSink<IN, C> extends Serializable {

    /**
     * The writer of subtask {@code context.subtaskIndex()}. {@code restored} holds the committables of the
     * checkpoint the task restores from (empty on a fresh start); they are committed by the committer,
     * so the writer must keep them, and abort or delete anything of this subtask that the previous
     * attempts began after that checkpoint — now ({@link SinkWriter}), or, where a checkpoint taken by
     * the previous attempt may still complete, once {@link SinkWriter#checkpointCompleted} says a newer one did.
     */
    SinkWriter<IN, C> createWriter(RuntimeContext context, List<C> restored) throws Exception;

    /** The committer of subtask {@code context.subtaskIndex()}; called on its commit thread only. */
    Committer<C> createCommitter(RuntimeContext context) throws Exception;

    /** Writes committables into checkpoints; must read those written by earlier versions of the sink. */
    TypeSerializer<C> committableSerializer();
}
