package io.sluice.compare;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What {@link LargeStateProcedure} needs from one system to run {@link Scenario#LARGE_STATE}: start the
 * job of {@link LargeStateWorkload} (fresh or from a savepoint), observe it, fail a task, take savepoints.
 * Each harness implements it on its own cluster; the procedure, and so every measurement, is the same.
 *
 * <p>Thread rules: called from the harness thread only.
 */
public interface LargeStateSystem extends AutoCloseable {

    /** One completed checkpoint as the system reports it. */
    record CheckpointSample(long id, long triggerMillis, double durationMs, long stateBytes) {
    }

    /**
     * Submits the job with its keyed operator at {@code keyedParallelism} (the source at the plan's
     * parallelism), from the savepoint at {@code restoreFrom} or empty if null; returns once it is submitted.
     */
    void start(int keyedParallelism, @Nullable String restoreFrom) throws Exception;

    /** Records the keyed operator processed so far, over all jobs this system ran (it may count in batches). */
    long processed();

    /** The completed checkpoints of the current job that the system still reports (at least the latest few). */
    List<CheckpointSample> checkpoints() throws Exception;

    /** The directory the current job's checkpoints are written under (for {@link UploadMeter}). */
    Path checkpointDir();

    /**
     * Makes the next record of a keyed subtask throw and waits until it threw; returns
     * {@link System#nanoTime()} of the throw.
     */
    long failTaskAndAwaitThrow(Duration timeout) throws Exception;

    /**
     * Waits for the first record a keyed instance started after {@code afterNanos} processed with
     * restored state (its key had a value); returns its {@link System#nanoTime()}.
     */
    long awaitRestoredRecordAfter(long afterNanos, Duration timeout) throws Exception;

    /**
     * A job-manager failover: stops the whole cluster as a job-manager process exit would (its job manager
     * and task executors; the job's HA data and checkpoints stay), then starts a new cluster on the same HA
     * store, which recovers the current job from its latest checkpoint. Returns {@link System#nanoTime()}
     * just before the new cluster starts; the first record processed with restored state after it is then
     * what {@link #awaitRestoredRecordAfter} waits for.
     */
    long restartCluster(Duration timeout) throws Exception;

    /**
     * Takes a savepoint of the current job into a new directory under {@code parent} (the system's
     * canonical format); with {@code stop} the job ends once it completed. Returns the savepoint's path.
     */
    String savepoint(Path parent, boolean stop, Duration timeout) throws Exception;

    /** The local directory that holds the savepoint {@code path} returned by {@link #savepoint}, to measure it. */
    default Path localPathOf(String path) {
        return LargeStateProcedure.localPath(path);
    }

    /**
     * Cancels the current job keeping its checkpoints, and returns what restores its latest completed one
     * (a path, or the system's own reference to it), for a rescale without a savepoint.
     */
    String cancelKeepingLatestCheckpoint(Duration timeout) throws Exception;

    /** Cancels the current job, if it runs. */
    void cancel() throws Exception;

    /** Header lines describing the system's set-up and every setting (for the result file). */
    java.util.Map<String, String> describe();
}
