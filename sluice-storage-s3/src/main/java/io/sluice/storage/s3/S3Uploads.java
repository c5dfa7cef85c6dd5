package io.sluice.storage.s3;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * Writes the objects of one {@link S3BlobStore}: one PUT, or a multipart upload for blobs above
 * {@code s3.multipart-threshold} in parts of {@code s3.part-size}, aborted when a part or the
 * completion fails. Either way readers see the whole object or none of it. Request bodies are streams
 * over the caller's array, fresh per attempt, so retries resend the same bytes without a copy.
 * Counts every request in the store's API call counter.
 *
 * <p>Threading: thread-safe; blocks on network I/O (never on a main thread: the store checks).
 */
final class S3Uploads {
    private static final Logger LOG = LoggerFactory.getLogger(S3Uploads.class);

    private final S3Location location;
    private final S3ClientHolder clients;
    private final AtomicLong apiCalls;
    private final long multipartThreshold;
    private final long partSize;

    S3Uploads(S3Location location, S3ClientHolder clients, AtomicLong apiCalls, long multipartThreshold,
              long partSize) {
        this.location = location;
        this.clients = clients;
        this.apiCalls = apiCalls;
        this.multipartThreshold = multipartThreshold;
        this.partSize = partSize;
    }

    /** Writes {@code data} as the object {@code key} (blob {@code path}), in parts if it is large. */
    void put(String path, String key, byte[] data) {
        if (data.length > multipartThreshold) {
            putMultipart(path, key, data);
        } else {
            apiCalls.incrementAndGet();
            clients.client().putObject(b -> b.bucket(location.bucket()).key(key).contentLength((long) data.length),
                    body(data, 0, data.length));
        }
    }

    private void putMultipart(String path, String key, byte[] data) {
        S3Client s3 = clients.client();
        String bucket = location.bucket();
        apiCalls.incrementAndGet();
        String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key(key)).uploadId();
        try {
            List<CompletedPart> parts = new ArrayList<>();
            int partNumber = 1;
            for (long offset = 0; offset < data.length; offset += partSize, partNumber++) {
                int off = (int) offset;
                int size = (int) Math.min(partSize, data.length - offset);
                int n = partNumber;
                apiCalls.incrementAndGet();
                String eTag = s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(n)
                        .contentLength((long) size), body(data, off, size)).eTag();
                parts.add(CompletedPart.builder().partNumber(n).eTag(eTag).build());
            }
            apiCalls.incrementAndGet();
            s3.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId)
                    .multipartUpload(m -> m.parts(parts)));
        } catch (RuntimeException e) {
            try {
                apiCalls.incrementAndGet();
                s3.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId));
            } catch (RuntimeException abortFailure) {
                LOG.warn("Could not abort multipart upload {} of {} in {}: {} (the store's lifecycle rules"
                        + " must clean it up)", uploadId, path, location, abortFailure.toString());
                e.addSuppressed(abortFailure);
            }
            throw e;
        }
    }

    private static RequestBody body(byte[] data, int offset, int length) {
        // A fresh stream per attempt, so that retries resend the same bytes; no copy of the data.
        return RequestBody.fromContentProvider(() -> new ByteArrayInputStream(data, offset, length), length,
                "application/octet-stream");
    }
}
