package io.sluice.api.errors;

/**
 * Keyed state was written with another max parallelism (number of key groups) than the restoring
 * job's: every key maps to another group, so the state cannot be restored at all. The job fails at
 * once, without using its restart budget; the checkpoint or savepoint is left as it is. Restore with
 * the max parallelism the state was written with ({@link #statesMaxParallelism()}).
 */
public class MaxParallelismMismatchException extends IllegalStateException implements UnrecoverableJobException {
    private final int statesMaxParallelism;
    private final int jobsMaxParallelism;

    public MaxParallelismMismatchException(String message, int statesMaxParallelism, int jobsMaxParallelism) {
        super(message);
        this.statesMaxParallelism = statesMaxParallelism;
        this.jobsMaxParallelism = jobsMaxParallelism;
    }

    /** The max parallelism the state was written with. */
    public int statesMaxParallelism() {
        return statesMaxParallelism;
    }

    /** The max parallelism of the job that tried to restore it. */
    public int jobsMaxParallelism() {
        return jobsMaxParallelism;
    }
}
