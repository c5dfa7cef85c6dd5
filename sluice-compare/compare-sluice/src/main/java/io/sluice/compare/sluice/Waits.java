package io.sluice.compare.sluice;

import io.sluice.protocol.DispatcherGateway;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Bounded waits of the harness for conditions it can only poll (job status, checkpoint counts).
 * Events the job reports itself are awaited on {@link KeyedProbe} instead, without polling.
 * Harness thread only: these block the caller.
 */
final class Waits {
    /** Time between two polls: short against every wait here, long against one status query (µs). */
    static final Duration POLL = Duration.ofMillis(10);

    private Waits() {}

    /** A condition that may throw. */
    interface Condition {
        boolean holds() throws Exception;
    }

    /**
     * Polls {@code condition} every {@link #POLL} until it holds.
     *
     * @throws TimeoutException naming {@code what} and the timeout, if it does not hold in time
     */
    static void until(String what, Duration timeout, Condition condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException("Timed out after " + timeout.toSeconds() + " s waiting for " + what);
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    /** The job's details, waiting at most 10 s for the answer. */
    static JobDetails details(DispatcherGateway dispatcher, JobId id) throws Exception {
        return dispatcher.requestJobDetails(id).get(10, TimeUnit.SECONDS);
    }
}
