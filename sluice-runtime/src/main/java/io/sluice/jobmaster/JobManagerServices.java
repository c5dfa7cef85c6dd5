package io.sluice.jobmaster;

import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.cluster.SlotPool;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.jar.UserCodeClassLoaders;
import io.sluice.util.Clock;
import java.util.concurrent.ExecutorService;
import java.util.random.RandomGenerator;

/**
 * What the job managers of one process share: HA services, checkpoint storages, the slot pool
 * and shuffle of the local cluster, the I/O executor (an {@link ExecutorService}, so that a
 * recovery blocked in storage can be interrupted), the clock, randomness for jitter, the backoff
 * of recovery retries, this job manager's id in elections, and the class loaders of jobs from jars
 * ({@link UserCodeClassLoaders}, shared with the task executors of the process).
 */
public record JobManagerServices(HighAvailabilityServices ha, CheckpointStorageRegistry checkpointStorages,
                                 SlotPool slotPool, ShuffleMaster shuffleMaster, ExecutorService ioExecutor,
                                 Clock clock, RandomGenerator random, RecoveryBackoff recoveryBackoff,
                                 String contenderId, UserCodeClassLoaders userCode) {

    /** Services whose jobs from jars get class loaders of their own, with jar copies under a temporary directory. */
    public JobManagerServices(HighAvailabilityServices ha, CheckpointStorageRegistry checkpointStorages,
                              SlotPool slotPool, ShuffleMaster shuffleMaster, ExecutorService ioExecutor,
                              Clock clock, RandomGenerator random, RecoveryBackoff recoveryBackoff,
                              String contenderId) {
        this(ha, checkpointStorages, slotPool, shuffleMaster, ioExecutor, clock, random, recoveryBackoff, contenderId,
                UserCodeClassLoaders.inTemporaryDirectory(ha::jobJarStore, ioExecutor));
    }
}
