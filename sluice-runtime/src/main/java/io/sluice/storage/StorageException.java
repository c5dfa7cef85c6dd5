package io.sluice.storage;

/**
 * A {@link BlobStore} operation failed. The message names the store location, the operation
 * and the path, and says what went wrong; the underlying exception (for example an
 * {@link java.io.IOException} or {@link java.net.ConnectException}) is kept as the cause.
 *
 * <p>Unchecked, because storage calls run on I/O executors and surface through futures.
 */
public class StorageException extends RuntimeException {
    /** Role of a store that holds checkpoints and savepoints ({@code checkpoints.dir}); the default role. */
    public static final String CHECKPOINT_STORAGE = "Checkpoint storage";
    /** Role of the high-availability store of job jars and graphs ({@code high-availability.storage-dir}). */
    public static final String HA_STORAGE = "HA storage";

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
        return message(CHECKPOINT_STORAGE, location, problem, op, path);
    }

    /**
     * Like {@link #message(String, String, String, String)} for a store with the given role, for example
     * {@code "HA storage s3://sluice-ha/jars unreachable (Connection refused) during get k"}, so the user
     * knows which configured location to look at.
     *
     * @param role what the store is for, as {@link BlobStore#role()} ({@link #CHECKPOINT_STORAGE} or
     *             {@link #HA_STORAGE})
     */
    public static String message(String role, String location, String problem, String op, String path) {
        return role + " " + location + " " + problem + " during " + op + " " + path;
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
