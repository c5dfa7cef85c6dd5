package io.sluice.storage.s3;

/**
 * A call on the long-timeout client ({@link S3Clients#buildForCompletions}: the completion of a multipart upload or a
 * copy on the server) that ran out of {@code s3.complete-upload-timeout}, so that {@link S3Errors} names that option
 * and not the ordinary timeouts. The SDK's exception is the cause.
 *
 * <p>Threading: immutable, any thread.
 */
final class LongCallTimedOutException extends RuntimeException {
    private final String what;

    LongCallTimedOutException(String what, RuntimeException cause) {
        super(what + " timed out", cause);
        this.what = what;
    }

    /** What the call did, in words: "completing the multipart upload", "copying the object on the server". */
    String what() {
        return what;
    }

    /** {@code e} wrapped if it is a timeout of the SDK (of the call, an attempt, or a socket read), else {@code e}. */
    static RuntimeException wrapIfTimeout(String what, RuntimeException e) {
        return S3Errors.isTimeout(e) ? new LongCallTimedOutException(what, e) : e;
    }
}
