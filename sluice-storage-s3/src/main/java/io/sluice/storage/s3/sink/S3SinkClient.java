package io.sluice.storage.s3.sink;

import io.sluice.config.Configuration;
import io.sluice.config.Durations;
import io.sluice.storage.s3.AttemptCounter;
import io.sluice.storage.s3.S3Clients;
import io.sluice.storage.s3.S3Options;
import java.io.IOException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The S3 calls of the exactly-once S3 file sink on one bucket, with bounded waits (timeouts, retries and
 * backoff from the sink's {@link S3Options}) and failures turned into {@link IOException}s that say what
 * failed where, for example {@code "S3 file sink: s3://b/out/part-0-ab12-3 unreachable (Connection
 * refused) during complete upload (4 attempts)"}. Credentials: {@code s3.access-key}/{@code s3.secret-key}
 * as resolved on the task manager (its system properties {@code sluice.s3.*}), else the SDK's default
 * chain (environment, profile, instance or container role).
 *
 * <p>Threading: thread-safe (the SDK client is); every call blocks on network I/O.
 */
final class S3SinkClient implements AutoCloseable {
    /** An open multipart upload: its key and id. */
    record Upload(String key, String uploadId) {}

    private final String bucket;
    private final Configuration options;
    private final S3Client s3;

    S3SinkClient(String bucket, Configuration effectiveOptions) {
        this.bucket = bucket;
        this.options = effectiveOptions;
        this.s3 = S3Clients.build(effectiveOptions, "the S3 file sink");
    }

    String bucket() {
        return bucket;
    }

    /**
     * A created multipart upload, and the HTTP attempts its create took: after more than one, an earlier attempt
     * may have created another upload of the key whose answer was lost (CreateMultipartUpload is not idempotent,
     * and the SDK retries it).
     */
    record Created(String uploadId, int attempts) {}

    Created createUpload(String key) throws IOException {
        AtomicInteger attempts = new AtomicInteger();
        String uploadId = call("create upload", key, () -> s3.createMultipartUpload(b -> b.bucket(bucket).key(key)
                .overrideConfiguration(o -> o.putExecutionAttribute(AttemptCounter.ATTEMPTS, attempts))).uploadId());
        return new Created(uploadId, attempts.get());
    }

    String uploadPart(String key, String uploadId, int number, byte[] data, int length) throws IOException {
        return call("upload part " + number, key, () -> s3.uploadPart(b -> b.bucket(bucket).key(key)
                .uploadId(uploadId).partNumber(number).contentLength((long) length),
                RequestBody.fromContentProvider(() -> new java.io.ByteArrayInputStream(data, 0, length), length,
                        "application/octet-stream")).eTag());
    }

    /** Completes the upload; throws {@link S3Exception} (unwrapped) when S3 answers with an error, for the caller to judge. */
    void complete(S3PartFile file) throws IOException {
        List<CompletedPart> parts = new ArrayList<>(file.parts().size());
        for (S3PartFile.Part p : file.parts()) {
            parts.add(CompletedPart.builder().partNumber(p.number()).eTag(p.eTag()).build());
        }
        callKeepingS3Errors("complete upload", file.key(), () -> s3.completeMultipartUpload(b -> b.bucket(bucket)
                .key(file.key()).uploadId(file.uploadId()).multipartUpload(m -> m.parts(parts))));
    }

    /** The object's metadata, or empty if there is no such object. */
    Optional<HeadObjectResponse> head(String key) throws IOException {
        return call("head", key, () -> {
            try {
                return Optional.of(s3.headObject(b -> b.bucket(bucket).key(key)));
            } catch (NoSuchKeyException e) {
                return Optional.empty();
            } catch (S3Exception e) {
                if (e.statusCode() == 404 && !"NoSuchBucket".equals(errorCode(e))) {
                    return Optional.empty();
                }
                throw e;
            }
        });
    }

    /** Every open multipart upload whose key starts with {@code prefix}, across all pages. */
    List<Upload> listUploads(String prefix) throws IOException {
        return call("list multipart uploads", prefix, () -> {
            List<Upload> out = new ArrayList<>();
            String keyMarker = null;
            String idMarker = null;
            while (true) {
                String k = keyMarker;
                String i = idMarker;
                ListMultipartUploadsResponse page = s3.listMultipartUploads(b -> b.bucket(bucket).prefix(prefix)
                        .keyMarker(k).uploadIdMarker(i));
                for (MultipartUpload u : page.uploads()) {
                    out.add(new Upload(u.key(), u.uploadId()));
                }
                if (!Boolean.TRUE.equals(page.isTruncated())) {
                    return out;
                }
                keyMarker = page.nextKeyMarker();
                idMarker = page.nextUploadIdMarker();
            }
        });
    }

    /** Aborts an upload; one that is already gone (404 NoSuchUpload) counts as aborted. */
    void abort(Upload upload) throws IOException {
        call("abort upload", upload.key(), () -> {
            try {
                s3.abortMultipartUpload(b -> b.bucket(bucket).key(upload.key()).uploadId(upload.uploadId()));
            } catch (S3Exception e) {
                if (e.statusCode() != 404) {
                    throw e;
                }
            }
            return null;
        });
    }

    @Override
    public void close() {
        s3.close();
    }

    static String errorCode(S3Exception e) {
        return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    }

    private interface Call<T> {
        T run();
    }

    private <T> T call(String op, String key, Call<T> action) throws IOException {
        try {
            return action.run();
        } catch (SdkException e) {
            throw new IOException(describe(op, key, e), e);
        }
    }

    private void callKeepingS3Errors(String op, String key, Call<?> action) throws IOException {
        try {
            action.run();
        } catch (S3Exception e) {
            throw e;
        } catch (SdkException e) {
            throw new IOException(describe(op, key, e), e);
        }
    }

    /** What went wrong, in words: {@code S3 file sink: s3://b/k unreachable (Connection refused) during op}. */
    String describe(String op, String key, SdkException e) {
        String problem;
        if (find(e, ConnectException.class) != null) {
            String m = String.valueOf(find(e, ConnectException.class).getMessage());
            problem = "unreachable (" + (m.contains("Connection refused") ? "Connection refused" : m) + ")";
        } else if (find(e, ApiCallTimeoutException.class) != null) {
            problem = "timed out (no answer within " + S3Options.API_CALL_TIMEOUT.key() + "="
                    + Durations.format(options.get(S3Options.API_CALL_TIMEOUT)) + ", retries included)";
        } else if (find(e, ApiCallAttemptTimeoutException.class) != null) {
            problem = "timed out (every attempt exceeded " + S3Options.API_CALL_ATTEMPT_TIMEOUT.key() + ")";
        } else if (e instanceof S3Exception s3e) {
            String code = errorCode(s3e);
            problem = "failed (HTTP " + s3e.statusCode() + (code == null ? "" : " " + code) + ": "
                    + (s3e.awsErrorDetails() == null || s3e.awsErrorDetails().errorMessage() == null
                            ? "no message" : s3e.awsErrorDetails().errorMessage()) + ")";
        } else {
            problem = "failed (" + e.getMessage() + ")";
        }
        String attempts = e.numAttempts() != null && e.numAttempts() > 1 ? " (" + e.numAttempts() + " attempts)" : "";
        return "S3 file sink: s3://" + bucket + "/" + key + " " + problem + " during " + op + attempts;
    }

    private static <X extends Throwable> X find(Throwable t, Class<X> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }
}
