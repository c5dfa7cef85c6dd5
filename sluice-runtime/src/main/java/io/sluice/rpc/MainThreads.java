package io.sluice.rpc;

import io.sluice.util.SystemClock;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Knows which threads are component main threads, and enforces the rule that they never do I/O.
 *
 * <p>Every {@link MainThreadExecutor} marks its thread. Storage and HA clients call
 * {@link #checkNotMainThread(String)} before each operation. The check always costs one
 * thread-local read. Every violation is counted ({@link #ioViolations()}, published as the metric
 * {@value MainThreadMetrics#IO_VIOLATIONS}). What else happens is decided by
 * {@link #isGuardEnabled()}: the test suite turns it on (system property
 * {@code sluice.forbidIoOnMainThread=true}), and a violation throws
 * {@link MainThreadViolationException} so that a regression fails loudly; in production (off) it is
 * logged at WARN with the stack trace, at most once per 10 s per call site
 * ({@link MainThreadViolationReporter}), and the call goes ahead.
 */
public final class MainThreads {
    private static final Logger LOG = LoggerFactory.getLogger(MainThreads.class);
    private static final ThreadLocal<String> COMPONENT = new ThreadLocal<>();
    private static final AtomicLong VIOLATIONS = new AtomicLong();
    private static volatile boolean guardEnabled = Boolean.getBoolean("sluice.forbidIoOnMainThread");
    private static volatile MainThreadViolationReporter reporter =
            new MainThreadViolationReporter(SystemClock.INSTANCE, LOG::warn);

    private MainThreads() {}

    /** Marks the calling thread as the main thread of {@code component}. */
    public static void markCurrentThread(String component) {
        COMPONENT.set(component);
    }

    /**
     * Removes the mark set by {@link #markCurrentThread(String)}, for executors that lend a thread
     * to a component only for a while (such as a manually triggered executor in tests).
     */
    public static void clearCurrentThread() {
        COMPONENT.remove();
    }

    /** The component whose main thread is running, or {@code null} if this is not a main thread. */
    public static String currentComponent() {
        return COMPONENT.get();
    }

    public static boolean isMainThread() {
        return COMPONENT.get() != null;
    }

    public static boolean isGuardEnabled() {
        return guardEnabled;
    }

    public static void setGuardEnabled(boolean enabled) {
        guardEnabled = enabled;
    }

    /**
     * Does nothing off main threads. On a main thread: counts the violation, then throws
     * {@link MainThreadViolationException} when the guard is on, or logs it (rate-limited) and
     * returns when it is off. {@code operation} names the I/O, for example
     * {@code "storage get chk-7/_metadata"}.
     */
    public static void checkNotMainThread(String operation) {
        String component = COMPONENT.get();
        if (component == null) {
            return;
        }
        long n = VIOLATIONS.incrementAndGet();
        String message = "I/O on the main thread of " + component + ": " + operation
                + ". Main threads must never block; run this on the I/O executor and continue with"
                + " ...Async(fn, mainThreadExecutor).";
        if (guardEnabled) {
            throw new MainThreadViolationException(message);
        }
        reporter.report(message, n);
    }

    /** Main-thread I/O violations in this JVM since it started, thrown or logged. */
    public static long ioViolations() {
        return VIOLATIONS.get();
    }

    /** Replaces the production reporter (tests); returns the previous one. */
    static MainThreadViolationReporter setReporter(MainThreadViolationReporter replacement) {
        MainThreadViolationReporter previous = reporter;
        reporter = replacement;
        return previous;
    }
}
