package io.sluice.jobmaster;

import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.slots.SlotPool;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.jar.UserCodeClassLoaders;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.util.Clock;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * What the job managers of one process share: HA services, checkpoint storages, the slot pool
 * and shuffle of the local cluster, the I/O executor (an {@link ExecutorService}, so that a
 * recovery blocked in storage can be interrupted), the clock, randomness for jitter, the backoff
 * of recovery retries (storage errors, and job-result writes), this job manager's id in elections,
 * the class loaders of jobs from jars ({@link UserCodeClassLoaders}, shared with the task executors
 * of the process), the slow backoff while every retained checkpoint is unreadable, and where job
 * masters get their main thread (the job managers of {@code LocalCluster} and {@code
 * JobManagerProcess} lend each one a pooled main thread, {@code MainThreadPool::newMainThread}; the
 * shorter constructors give each a {@link DedicatedMainThreadExecutor}; tests a manually triggered
 * one), and the bound and order of recovery reads across all jobs ({@link RecoveryReads}).
 */
public record JobManagerServices(HighAvailabilityServices ha, CheckpointStorageRegistry checkpointStorages,
                                 SlotPool slotPool, ShuffleMaster shuffleMaster, ExecutorService ioExecutor,
                                 Clock clock, RandomGenerator random, RecoveryBackoff recoveryBackoff,
                                 String contenderId, UserCodeClassLoaders userCode,
                                 RecoveryBackoff unusableCheckpointsBackoff,
                                 Function<String, MainThreadExecutor> jobMasterThreads,
                                 RecoveryReads recoveryReads) {

    /** Services whose recovery reads are bounded by {@link RecoveryReads#DEFAULT_MAX_CONCURRENT}. */
    public JobManagerServices(HighAvailabilityServices ha, CheckpointStorageRegistry checkpointStorages,
                              SlotPool slotPool, ShuffleMaster shuffleMaster, ExecutorService ioExecutor,
                              Clock clock, RandomGenerator random, RecoveryBackoff recoveryBackoff,
                              String contenderId, UserCodeClassLoaders userCode,
                              RecoveryBackoff unusableCheckpointsBackoff,
                              Function<String, MainThreadExecutor> jobMasterThreads) {
        this(ha, checkpointStorages, slotPool, shuffleMaster, ioExecutor, clock, random, recoveryBackoff, contenderId,
                userCode, unusableCheckpointsBackoff, jobMasterThreads,
                new RecoveryReads(RecoveryReads.DEFAULT_MAX_CONCURRENT, ioExecutor));
    }

    /** Services whose jobs from jars get class loaders with jar copies under a temporary directory. */
    public JobManagerServices(HighAvailabilityServices ha, CheckpointStorageRegistry checkpointStorages,
                              SlotPool slotPool, ShuffleMaster shuffleMaster, ExecutorService ioExecutor,
                              Clock clock, RandomGenerator random, RecoveryBackoff recoveryBackoff,
                              String contenderId) {
        this(ha, checkpointStorages, slotPool, shuffleMaster, ioExecutor, clock, random, recoveryBackoff, contenderId,
                UserCodeClassLoaders.inTemporaryDirectory(ha::jobJarStore, ioExecutor));
    }

    /** Services with the default backoff for unreadable checkpoints and a dedicated thread per job master. */
    public JobManagerServices(HighAvailabilityServices ha, CheckpointStorageRegistry checkpointStorages,
                              SlotPool slotPool, ShuffleMaster shuffleMaster, ExecutorService ioExecutor,
                              Clock clock, RandomGenerator random, RecoveryBackoff recoveryBackoff,
                              String contenderId, UserCodeClassLoaders userCode) {
        this(ha, checkpointStorages, slotPool, shuffleMaster, ioExecutor, clock, random, recoveryBackoff, contenderId,
                userCode, RecoveryBackoff.UNUSABLE_CHECKPOINTS, DedicatedMainThreadExecutor::new);
    }

    /** Services with the given unreadable-checkpoint backoff and job-master threads (tests). */
    public JobManagerServices(HighAvailabilityServices ha, CheckpointStorageRegistry checkpointStorages,
                              SlotPool slotPool, ShuffleMaster shuffleMaster, ExecutorService ioExecutor,
                              Clock clock, RandomGenerator random, RecoveryBackoff recoveryBackoff,
                              String contenderId, RecoveryBackoff unusableCheckpointsBackoff,
                              Function<String, MainThreadExecutor> jobMasterThreads) {
        this(ha, checkpointStorages, slotPool, shuffleMaster, ioExecutor, clock, random, recoveryBackoff, contenderId,
                UserCodeClassLoaders.inTemporaryDirectory(ha::jobJarStore, ioExecutor), unusableCheckpointsBackoff,
                jobMasterThreads);
    }
}
