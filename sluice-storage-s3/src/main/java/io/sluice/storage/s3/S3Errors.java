package io.sluice.storage.s3;

import io.sluice.config.Configuration;
import io.sluice.config.Durations;
import io.sluice.storage.StorageException;
import io.sluice.util.Throwables;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Turns the SDK's failures of one {@link S3BlobStore} into {@link StorageException}s whose message
 * names the store's role, location, operation and path and says in words what happened: unreachable,
 * which timeout (with its option and value), interrupted (the interrupt flag is set again), a missing
 * bucket, or the HTTP status and S3 error; with the number of attempts when the call was retried.
 *
 * <p>Threading: immutable, any thread.
 */
final class S3Errors {
    private final String role;
    private final S3Location location;
    private final Configuration options;

    S3Errors(String role, S3Location location, Configuration options) {
        this.role = role;
        this.location = location;
        this.options = options;
    }

    /** The storage exception for {@code e}, a failure of {@code op} on {@code path}. */
    StorageException translate(String op, String path, RuntimeException e) {
        String message = StorageException.message(role, location.toString(), problem(e), op, path);
        RuntimeException sdkFailure = e instanceof LongCallTimedOutException l ? (RuntimeException) l.getCause() : e;
        if (sdkFailure instanceof SdkException sdk && sdk.numAttempts() != null && sdk.numAttempts() > 1) {
            message += " (" + sdk.numAttempts() + " attempts)";
        }
        return new StorageException(message, e);
    }

    /** What happened, in words: "unreachable (Connection refused)", "timed out (...)", "failed (...)". */
    private String problem(RuntimeException e) {
        Throwable connect = find(e, ConnectException.class);
        if (find(e, AbortedException.class) != null || find(e, InterruptedException.class) != null
                || (Thread.currentThread().isInterrupted() && !(e instanceof S3Exception))) {
            Thread.currentThread().interrupt();
            return "call interrupted";
        } else if (e instanceof LongCallTimedOutException longCall) {
            return "timed out (" + longCall.what() + " took longer than " + S3Options.COMPLETE_UPLOAD_TIMEOUT.key() + "="
                    + Durations.format(options.get(S3Options.COMPLETE_UPLOAD_TIMEOUT)) + " per attempt)";
        } else if (connect != null) {
            String m = String.valueOf(connect.getMessage());
            return "unreachable (" + (m.contains("Connection refused") ? "Connection refused" : m) + ")";
        } else if (find(e, ApiCallTimeoutException.class) != null) {
            return "timed out (no answer within " + S3Options.API_CALL_TIMEOUT.key() + "="
                    + Durations.format(options.get(S3Options.API_CALL_TIMEOUT)) + ", retries included)";
        } else if (find(e, ApiCallAttemptTimeoutException.class) != null) {
            return "timed out (every attempt exceeded " + S3Options.API_CALL_ATTEMPT_TIMEOUT.key() + "="
                    + Durations.format(options.get(S3Options.API_CALL_ATTEMPT_TIMEOUT)) + ")";
        } else if (find(e, SocketTimeoutException.class) != null) {
            return "timed out (no data within " + S3Options.SOCKET_TIMEOUT.key() + "="
                    + Durations.format(options.get(S3Options.SOCKET_TIMEOUT)) + ")";
        } else if (find(e, InterruptedIOException.class) != null) {
            return "timed out (" + find(e, InterruptedIOException.class).getMessage() + ")";
        } else if (e instanceof S3Exception s3e) {
            String code = errorCode(s3e);
            if ("NoSuchBucket".equals(code) || s3e instanceof NoSuchBucketException) {
                return "failed (bucket '" + location.bucket() + "' does not exist)";
            }
            return "failed (HTTP " + s3e.statusCode() + (code == null ? "" : " " + code) + ": " + errorMessage(s3e) + ")";
        } else if (e instanceof IllegalStateException) {
            return "unavailable (" + e.getMessage() + ")";
        }
        return "failed (" + StorageException.describeCause(Throwables.rootCause(e)) + ")";
    }

    /** Whether {@code e} is the SDK's timeout of a call, of an attempt, or of a socket read. */
    static boolean isTimeout(RuntimeException e) {
        return find(e, ApiCallTimeoutException.class) != null || find(e, ApiCallAttemptTimeoutException.class) != null
                || find(e, SocketTimeoutException.class) != null;
    }

    static String errorCode(S3Exception e) {
        return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    }

    static String errorMessage(S3Exception e) {
        if (e.awsErrorDetails() != null && e.awsErrorDetails().errorMessage() != null) {
            return e.awsErrorDetails().errorMessage();
        }
        return e.getMessage();
    }

    /** The first throwable of {@code type} in {@code t}'s causes and their suppressed ones, or {@code null}. */
    private static <X extends Throwable> X find(Throwable t, Class<X> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
            for (Throwable s : c.getSuppressed()) {
                if (type.isInstance(s)) {
                    return type.cast(s);
                }
            }
        }
        return null;
    }
}
