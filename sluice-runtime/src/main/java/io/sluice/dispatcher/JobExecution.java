package io.sluice.dispatcher;

import io.sluice.jar.ClassLoaderLease;
import io.sluice.job.JobResult;
import io.sluice.jobmaster.RecoveryReads;
import io.sluice.jobmaster.runner.JobManagerRunner;
import io.sluice.protocol.JobDetails;

/**
 * Where one job stands on this Dispatcher; each stage is an immutable value and the job's {@link
 * JobRecord} swaps them. A job with no stage is not known to run or have ended here (its record
 * only holds a result request or the closing of an earlier runner).
 */
sealed interface JobExecution {

    /** A submission admitted on the main thread whose graph is being stored. */
    record Submitting() implements JobExecution {
    }

    /**
     * A stored job whose graph (and jar) is being read back at recovery. {@code ticket}: its place in
     * the recovery order; {@code read}: the read queued or in flight (null while a retry waits);
     * {@code failure}: why the last read failed, or null; {@code cancelled}: a cancel arrived, so it ends
     * CANCELED instead of starting.
     */
    record ReadingGraph(long ticket, RecoveryReads.Reservation read, GraphReadFailure failure, boolean cancelled)
            implements JobExecution {

        ReadingGraph withRead(RecoveryReads.Reservation r) {
            return new ReadingGraph(ticket, r, failure, cancelled);
        }

        ReadingGraph withFailure(GraphReadFailure f) {
            return new ReadingGraph(ticket, null, f, cancelled);
        }

        ReadingGraph cancel() {
            return new ReadingGraph(ticket, read, failure, true);
        }
    }

    /** Why a stored job's graph could not be read yet (attempt, error, next retry), for its status. */
    record GraphReadFailure(int attempt, String error, long nextRetryAtMillis) {
    }

    /** Run by {@code runner}; {@code lease} keeps the job's class loader until the runner has closed. */
    record Running(JobManagerRunner runner, ClassLoaderLease lease) implements JobExecution {
    }

    /** Ended here or before (its result is durable); {@code details}: its last details. */
    record Ended(JobResult result, JobDetails details) implements JobExecution {
    }
}
