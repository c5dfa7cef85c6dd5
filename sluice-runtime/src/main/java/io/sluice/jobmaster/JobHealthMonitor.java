package io.sluice.jobmaster;

import io.sluice.checkpoint.CheckpointFailureReason;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.checkpoint.KeyedStateRestoreException;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobHealth;
import io.sluice.restart.CrashLoop;
import io.sluice.restart.CrashLoopDetector;
import io.sluice.rpc.remote.SerializedThrowable;
import io.sluice.slots.TaskExecutorLostException;
import io.sluice.util.Clock;
import io.sluice.util.Throwables;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job master's view of what its status alone does not say ({@link JobHealth}): whether the job is
 * in a crash loop ({@link CrashLoopDetector}), and whether its latest completed checkpoint is older
 * than {@code checkpoints.stale-after}. Also decides how a crash loop paces the restarts: a restore
 * that can never succeed is retried at most every {@link CrashLoopDetector#SLOW_RETRY}, any other
 * loop at the restart strategy's pace. Nothing here ever discards a checkpoint.
 *
 * <p>Threading: {@link #taskFailed}, {@link #restoreWaiting} and {@link #restartDelay} on the job
 * master's main thread; {@link #health} from any thread (it reads what the main thread published
 * in a volatile field, the store's in-memory latest checkpoint and the clock).
 */
final class JobHealthMonitor {
    private static final Logger LOG = LoggerFactory.getLogger(JobHealthMonitor.class);

    private final JobId jobId;
    private final JobConfig config;
    private final CompletedCheckpointStore store;
    private final Clock clock;
    private final CrashLoopDetector detector;
    /** Wall-clock time the job master was created: the reference while no checkpoint completed. */
    private final long startedMillis;
    /** The latest crash loop, published by the main thread; {@code null} when none. */
    private volatile CrashLoop crashLoop;

    JobHealthMonitor(JobId jobId, JobConfig config, CompletedCheckpointStore store, Clock clock) {
        this.jobId = jobId;
        this.config = config;
        this.store = store;
        this.clock = clock;
        this.detector = new CrashLoopDetector(clock, jobId.value());
        this.startedMillis = clock.currentTimeMillis();
    }

    /**
     * The first task failure of a deployment round. Main thread.
     *
     * @param vertexName          the failed task's vertex, or {@code null} (not one task's failure)
     * @param restoringFrom       the checkpoint the failed task was still restoring from, or -1
     * @param transientCause      the failure is known to be transient (a lost task manager, a deployment RPC)
     */
    void taskFailed(Throwable cause, String vertexName, long restoringFrom, boolean transientCause) {
        Throwable root = Throwables.rootCause(cause);
        KeyedStateRestoreException restore = KeyedStateRestoreException.find(cause);
        boolean isTransient = transientCause || CheckpointFailureReason.isStorageFailure(cause)
                || find(cause, TaskExecutorLostException.class) || find(cause, InterruptedException.class);
        // The restore failed (the task names it, also when its exception arrived from another process as a
        // SerializedThrowable), or a task still restoring failed on something transient.
        long checkpoint = restore != null ? restore.checkpointId()
                : restoringFrom >= 0 && (isTransient || arrivedAs(cause, KeyedStateRestoreException.class)) ? restoringFrom
                : -1;
        record(new CrashLoopDetector.Failure(typeOf(root), root.getMessage(), originOf(vertexName, root), checkpoint,
                isTransient));
    }

    /** No retained checkpoint has usable state and the job waits for repaired files (another round). Main thread. */
    void restoreWaiting(String message) {
        record(new CrashLoopDetector.Failure(io.sluice.checkpoint.StateRestoreException.class.getName(), message, null,
                -1, false, true));
    }

    private void record(CrashLoopDetector.Failure failure) {
        CrashLoop before = crashLoop;
        detector.record(failure);
        CrashLoop now = detector.current();
        crashLoop = now;
        if (now != null && (before == null || before.kind() != now.kind() || now.restoreNeverSucceeds())) {
            LOG.warn("Job {}: {} (in {}). {}", jobId, now.summary(), now.origin(), now.advice());
        }
    }

    /**
     * How long to wait before the next restart after {@code strategyBackoff}: at least
     * {@link CrashLoopDetector#SLOW_RETRY} while restoring can never succeed. Main thread.
     */
    Duration restartDelay(Duration strategyBackoff) {
        CrashLoop loop = detector.current();
        if (loop != null && loop.restoreNeverSucceeds() && strategyBackoff.compareTo(CrashLoopDetector.SLOW_RETRY) < 0) {
            return CrashLoopDetector.SLOW_RETRY;
        }
        return strategyBackoff;
    }

    /** The job's health while it is {@code status} under this job master. Any thread. */
    JobHealth health(JobStatus status) {
        CrashLoop loop = crashLoop;
        long now = clock.currentTimeMillis();
        if (loop != null && !status.isTerminal() && now - loop.lastMillis() > CrashLoopDetector.RESET_AFTER.toMillis()) {
            loop = null; // quiet for long enough: the job runs (the main thread's detector agrees at its next failure)
        }
        if (!config.checkpointingEnabled()) {
            return new JobHealth(loop, -1, 0);
        }
        long staleAfter = config.effectiveCheckpointStaleAfter().toMillis();
        if (status.isTerminal()) {
            return new JobHealth(loop, -1, staleAfter);
        }
        long latest = store.latest().map(CompletedCheckpoint::completionTimestampMillis).orElse(0L);
        long reference = Math.max(latest, startedMillis);
        long since = now - reference > staleAfter ? (latest > 0 ? latest : startedMillis) : -1;
        return new JobHealth(loop, since, staleAfter);
    }

    /**
     * Milliseconds since the latest completed checkpoint (or, before the first, since this job master
     * started); 0 while the job does not checkpoint or has ended. Any thread.
     */
    long checkpointAgeMillis(JobStatus status) {
        if (!config.checkpointingEnabled() || status.isTerminal()) {
            return 0;
        }
        long latest = store.latest().map(CompletedCheckpoint::completionTimestampMillis).orElse(0L);
        return Math.max(0, clock.currentTimeMillis() - Math.max(latest, startedMillis));
    }

    private static boolean find(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code t} or one of its causes stands for an exception of {@code type} from another process. */
    private static boolean arrivedAs(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof SerializedThrowable remote && type.getName().equals(remote.originalClassName())) {
                return true;
            }
        }
        return false;
    }

    private static String typeOf(Throwable root) {
        return root instanceof SerializedThrowable remote ? remote.originalClassName() : root.getClass().getName();
    }

    /** {@code "vertex 'count' at com.example.Counter.map"}: the vertex and the top stack frame, as far as known. */
    private static String originOf(String vertexName, Throwable root) {
        StackTraceElement[] trace = root.getStackTrace();
        String frame = trace.length == 0 ? null : trace[0].getClassName() + "." + trace[0].getMethodName();
        if (vertexName == null) {
            return frame;
        }
        return "vertex '" + vertexName + "'" + (frame == null ? "" : " at " + frame);
    }
}
