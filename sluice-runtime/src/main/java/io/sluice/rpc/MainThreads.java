package io.sluice.rpc;

/**
 * Knows which threads are component main threads, and enforces the rule that they never do I/O.
 *
 * <p>Every {@link MainThreadExecutor} marks its thread. Storage and HA clients call
 * {@link #checkNotMainThread(String)} before each operation. The check always costs one
 * thread-local read; whether a violation throws is decided by {@link #isGuardEnabled()}, which
 * the test suite turns on (system property {@code sluice.forbidIoOnMainThread=true}) so that a
 * regression fails loudly instead of hiding until production.
 */
public final class MainThreads {
    private static final ThreadLocal<String> COMPONENT = new ThreadLocal<>();
    private static volatile boolean guardEnabled = Boolean.getBoolean("sluice.forbidIoOnMainThread");

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
     * Throws {@link MainThreadViolationException} when the guard is on and the caller runs on a
     * main thread. {@code operation} names the I/O, for example {@code "storage get chk-7/_metadata"}.
     */
    public static void checkNotMainThread(String operation) {
        String component = COMPONENT.get();
        if (component != null && guardEnabled) {
            throw new MainThreadViolationException("I/O on the main thread of " + component + ": " + operation
                    + ". Main threads must never block; run this on the I/O executor and continue with"
                    + " ...Async(fn, mainThreadExecutor).");
        }
    }
}
