package io.sluice.jobmaster;

import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.cluster.SlotPool;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.util.Clock;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.rpc.MainThreadExecutor;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * What the job managers of one process share: HA services, checkpoint storages, the slot pool
 * and shuffle of the local cluster, the I/O executor (an {@link ExecutorService}, so that a
 * recovery blocked in storage can be interrupted), the clock, randomness for jitter, the backoff
 * of recovery retries (storage errors, and job-result writes), the slow backoff while every retained
 * checkpoint is unreadable, this job manager's id in elections, and where job masters get their main
 * thread (a {@link DedicatedMainThreadExecutor} per job master in production; a manually triggered
 * one in tests).
 */
public record JobManagerServices(HighAvailabilityServices ha, CheckpointStorageRegistry checkpointStorages,
                                 SlotPool slotPool, ShuffleMaster shuffleMaster, ExecutorService ioExecutor,
                                 Clock clock, RandomGenerator random, RecoveryBackoff recoveryBackoff,
                                 String contenderId, RecoveryBackoff unusableCheckpointsBackoff,
                                 Function<String, MainThreadExecutor> jobMasterThreads) {

    /** Services with the default backoff for unreadable checkpoints and a dedicated thread per job master. */
    public JobManagerServices(HighAvailabilityServices ha, CheckpointStorageRegistry checkpointStorages,
                              SlotPool slotPool, ShuffleMaster shuffleMaster, ExecutorService ioExecutor,
                              Clock clock, RandomGenerator random, RecoveryBackoff recoveryBackoff,
                              String contenderId) {
        this(ha, checkpointStorages, slotPool, shuffleMaster, ioExecutor, clock, random, recoveryBackoff, contenderId,
                RecoveryBackoff.UNUSABLE_CHECKPOINTS, DedicatedMainThreadExecutor::new);
    }
}
