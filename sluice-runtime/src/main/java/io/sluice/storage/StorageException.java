package io.sluice.storage;

/**
 * A {@link BlobStore} operation failed. The message names the store location, the operation
 * and the path, and says what went wrong; the underlying exception (for example an
 * {@link java.io.IOException} or {@link java.net.ConnectException}) is kept as the cause.
 *
 * <p>Unchecked, because storage calls run on I/O executors and surface through futures.
 */
public class StorageException extends RuntimeException {

    public StorageException(String message) {
        super(message);
    }

    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Builds the standard message, for example
     * {@code "Checkpoint storage file:///x unreachable (Connection refused) during get 1a2b/chk-7/_metadata"}.
     *
     * @param location the store, as {@link BlobStore#describe()}
     * @param problem  what went wrong, for example {@code "failed (AccessDeniedException: /x/1a2b)"}
     * @param op       the operation, for example {@code "get"}
     * @param path     the path the operation was about
     */
    public static String message(String location, String problem, String op, String path) {
        return "Checkpoint storage " + location + " " + problem + " during " + op + " " + path;
    }

    /** {@code "SimpleClassName: message"} of {@code t}, for use inside messages. */
    public static String describeCause(Throwable t) {
        if (t == null) {
            return "unknown cause";
        }
        String m = t.getMessage();
        return m == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": " + m;
    }
}
