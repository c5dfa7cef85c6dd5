package io.sluice.jobmaster.runner;

import io.sluice.jobmaster.JobMaster;
import io.sluice.protocol.RecoveryStatus;
import io.sluice.rpc.MainThreadExecutor;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * A job master this runner created: the leader session it runs under, its own main thread, what
 * it was recovered from, how that recovery went (shown with its details), and {@code ended}, which
 * the runner completes once the job master has ended (all its tasks stopped) and the runner has
 * handled that. The job master's state is its own; the runner reaches it only through its thread
 * or its gateway methods.
 */
record RunningJobMaster(JobMaster jobMaster, MainThreadExecutor thread, UUID session, Recovered recovered,
                        RecoveryStatus recovery, CompletableFuture<Void> ended) {

    /** Tells the job master, on its thread, to suspend: it cancels its tasks and ends SUSPENDED. */
    void suspend(String reason) {
        thread.execute(() -> jobMaster.suspend(reason));
    }
}
