package io.sluice.cluster.membership;

import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The two main threads of the membership tests, manually triggered over one {@link ManualClock}: the
 * task executor's (the connector's) and the job manager's (the registry's). Test thread only.
 */
final class MembershipThreads {
    final ManualClock clock = new ManualClock();
    final ManuallyTriggeredMainThreadExecutor taskExecutor = new ManuallyTriggeredMainThreadExecutor("taskexecutor", clock);
    final ManuallyTriggeredMainThreadExecutor jobManager = new ManuallyTriggeredMainThreadExecutor("jobmanager", clock);

    /** Runs both threads until nothing is due. */
    void settle() {
        while (taskExecutor.triggerAll() + jobManager.triggerAll() + taskExecutor.advanceTime(Duration.ZERO)
                + jobManager.advanceTime(Duration.ZERO) > 0) {
            // keep going
        }
    }

    /** Moves time forward in steps of 10 ms, running both main threads at every step. */
    void advance(Duration by) {
        for (long ms = 0; ms < by.toMillis(); ms += 10) {
            taskExecutor.advanceTime(Duration.ofMillis(10));
            settle();
        }
    }

    /** Where {@code connector} stands, after running both threads. */
    ConnectionStatus status(JobManagerConnector connector) {
        CompletableFuture<ConnectionStatus> s = connector.status();
        settle();
        return s.join();
    }
}
