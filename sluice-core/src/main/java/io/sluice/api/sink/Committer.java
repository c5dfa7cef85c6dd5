package io.sluice.api.sink;

/**
 * Makes pre-committed output of a {@link TwoPhaseCommitSink} visible.
 *
 * <p>{@link #commit} must be idempotent: after a restore, committables whose commit had already
 * succeeded are committed again, and that must succeed without making anything visible twice. A
 * commit that throws is retried with backoff (100 ms, doubling to 10 s) for as long as the job runs,
 * and shows as pending in the job's status; an exception marked
 * {@link io.sluice.api.errors.UnrecoverableJobException} fails the job instead.
 *
 * <p>Threading: called only from the subtask's commit thread (never the task thread), one committable
 * at a time, in checkpoint order.
 */
public interface Committer<C> extends AutoCloseable {

    /** Makes {@code committable} visible, or confirms that it already is. May block. */
    void commit(C committable) throws Exception;

    @Override
    default void close() throws Exception {}
}
