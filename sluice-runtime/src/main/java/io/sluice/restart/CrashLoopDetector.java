package io.sluice.restart;

import io.sluice.util.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Finds a job's crash loop: the same failure on consecutive attempts. Two failures are the same
 * when their root cause has the same exception class, the same message <em>shape</em> and the same
 * origin (vertex and top stack frame), and both happened while restoring or both while processing.
 * The shape of a message is the message with what changes from attempt to attempt taken out: ids
 * (UUIDs and runs of 8 or more hex digits, as in class loader names) become {@code <id>}, numbers
 * become {@code #}; so "attempt 3 failed for key 17" and "attempt 4 failed for key 17" are the same.
 *
 * <p>From {@link #THRESHOLD} such failures in a row on, {@link #current()} reports a
 * {@link CrashLoop}. A different failure starts a new run; so does a failure more than
 * {@link #RESET_AFTER} after the previous one (the job ran well meanwhile), and a loop whose latest
 * failure is older than that is no longer reported.
 *
 * <p>Classification: a run in which every attempt failed while restoring, with a cause the caller
 * does not deem transient, is {@link CrashLoop.Kind#RESTORE_NEVER_SUCCEEDS}: the same state read by
 * the same code fails the same way, so no restart will fix it. The checkpoint may differ between the
 * attempts (the first restart can take an older one while a newer one is still being finalized);
 * failing the same way from several only makes it surer. The job
 * master then retries at most every {@link #SLOW_RETRY}, never deletes a checkpoint because of it,
 * and the status says what the operator can do.
 *
 * <p>Not thread-safe: JobMaster main thread only. Time comes from the injected clock (monotonic for
 * the reset, wall clock for the times shown).
 */
public final class CrashLoopDetector {
    /** Consecutive same failures from which a crash loop is reported: one repetition can be chance, two in a row hardly. */
    public static final int THRESHOLD = 3;
    /** A failure this long after the previous one starts a new run: the same window as the restart rate's. */
    public static final Duration RESET_AFTER = RestartTracker.WINDOW;
    /**
     * How often a restore that can never succeed is still tried: slow enough to cost nothing (one
     * restore and one log line per 5 min), fast enough that a fix of the cluster is picked up soon.
     */
    public static final Duration SLOW_RETRY = Duration.ofMinutes(5);

    private static final Pattern UUID = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern HEX_ID = Pattern.compile("\\b(?=[0-9a-fA-F]*\\d)[0-9a-fA-F]{8,}\\b");
    private static final Pattern NUMBER = Pattern.compile("\\d+");

    /**
     * One failure of an attempt.
     *
     * @param type                the root cause's exception class name
     * @param message             the root cause's message, or {@code null}
     * @param origin              where it was thrown (vertex and top stack frame), or {@code null}
     * @param restoreCheckpointId the checkpoint the failed task was restoring from, or -1 if it was processing
     *                            (or, with {@code restoring}, when no single checkpoint is to blame)
     * @param transientCause      the cause looks transient (storage, a lost task manager, a timeout): never
     *                            classified as a restore that can never succeed
     * @param restoring           the attempt failed while restoring
     */
    public record Failure(String type, String message, String origin, long restoreCheckpointId,
                          boolean transientCause, boolean restoring) {
        public Failure {
            Objects.requireNonNull(type, "type");
        }

        /** Restoring when {@code restoreCheckpointId >= 0}. */
        public Failure(String type, String message, String origin, long restoreCheckpointId, boolean transientCause) {
            this(type, message, origin, restoreCheckpointId, transientCause, restoreCheckpointId >= 0);
        }

        /** {@code "ExceptionClass: message"}. */
        public String describe() {
            return type + ": " + message;
        }
    }

    private final Clock clock;
    private final String jobId;

    /** The signature of the current run, or {@code null} before the first failure. */
    private @Nullable String signature;
    private int count;
    private long sinceMillis;
    private long lastMillis;
    private long lastNanos;
    private @Nullable Failure last;
    /** Every failure of the run happened while restoring, with a cause not deemed transient. */
    private boolean deterministicRestore;
    /** Every failure of the run happened while restoring. */
    private boolean runRestoring;

    /** @param jobId named in the advice ({@code --restore-from latest:<jobId>}) */
    public CrashLoopDetector(Clock clock, String jobId) {
        this.clock = clock;
        this.jobId = jobId;
    }

    /** Records the failure of an attempt (the first task failure of a deployment round). */
    public void record(Failure failure) {
        long now = clock.nanoTime();
        String sig = signatureOf(failure);
        boolean restoring = failure.restoring();
        boolean quiet = signature != null && now - lastNanos > RESET_AFTER.toNanos();
        if (!sig.equals(signature) || quiet) {
            signature = sig;
            count = 0;
            sinceMillis = clock.currentTimeMillis();
            deterministicRestore = restoring;
            runRestoring = restoring;
        }
        count++;
        lastNanos = now;
        lastMillis = clock.currentTimeMillis();
        last = failure;
        deterministicRestore &= restoring && !failure.transientCause();
    }

    /** The crash loop the job is in, or {@code null} when it is in none. */
    public @Nullable CrashLoop current() {
        if (last == null || count < THRESHOLD || clock.nanoTime() - lastNanos > RESET_AFTER.toNanos()) {
            return null;
        }
        CrashLoop.Kind kind = deterministicRestore ? CrashLoop.Kind.RESTORE_NEVER_SUCCEEDS
                : runRestoring ? CrashLoop.Kind.RESTORE : CrashLoop.Kind.PROCESSING;
        long checkpoint = kind == CrashLoop.Kind.PROCESSING ? -1 : last.restoreCheckpointId();
        return new CrashLoop(count, sinceMillis, lastMillis, last.describe(), last.origin(), kind, checkpoint,
                advice(kind, checkpoint));
    }

    private String advice(CrashLoop.Kind kind, long checkpoint) {
        String restart = "cancel the job and run a fixed jar with --restore-from latest:" + jobId
                + " (or -D checkpoints.restore-from=latest:" + jobId + ")";
        return switch (kind) {
            case RESTORE_NEVER_SUCCEEDS -> "Restore from " + CrashLoop.checkpointName(checkpoint) + " can never succeed: the same"
                    + " state read by the same code fails the same way on every attempt. The job keeps all its"
                    + " checkpoints and retries only slowly. Cancel the job and run"
                    + " a fixed jar with --restore-from latest:" + jobId + ", or fix the cluster (a missing class"
                    + " or serializer) and the job resumes by itself.";
            case RESTORE -> "Restoring from " + CrashLoop.checkpointName(checkpoint) + " fails the same way on every attempt with an"
                    + " error that looks transient (storage, a lost task manager); restarts go on at the restart"
                    + " strategy's pace. Check the checkpoint storage and the task managers.";
            case PROCESSING -> "The job's tasks fail the same way on every attempt; restarts go on at the restart"
                    + " strategy's pace. If the error is in the job's code, " + restart + ".";
        };
    }

    /** The class, the message's shape, the origin, and whether the task was restoring. */
    static String signatureOf(Failure f) {
        return f.type() + "|" + shape(f.message()) + "|" + (f.origin() == null ? "" : shape(f.origin())) + "|"
                + (f.restoring() ? "restore" : "process");
    }

    /** The message with ids and numbers replaced, so that what changes between attempts does not count. */
    static String shape(String message) {
        if (message == null) {
            return "";
        }
        String s = UUID.matcher(message).replaceAll("<id>");
        s = HEX_ID.matcher(s).replaceAll("<id>");
        return NUMBER.matcher(s).replaceAll("#");
    }
}
