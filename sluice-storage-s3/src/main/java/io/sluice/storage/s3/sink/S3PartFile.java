package io.sluice.storage.s3.sink;

import java.util.List;
import java.util.Objects;

/**
 * One part file pre-committed by an {@link S3ExactlyOnceFileSink} writer: the multipart upload of object
 * {@code key} in {@code bucket} with id {@code uploadId}, its uploaded parts in order, and its length in
 * bytes. The object becomes visible when the upload is completed with exactly these parts. Immutable.
 */
public record S3PartFile(String bucket, String key, String uploadId, List<Part> parts, long length) {

    /** An uploaded part: its number (1-based) and the ETag S3 answered. */
    public record Part(int number, String eTag) {
        public Part {
            Objects.requireNonNull(eTag, "eTag");
        }
    }

    public S3PartFile {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(uploadId, "uploadId");
        parts = List.copyOf(parts);
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("S3 part file " + key + ": a multipart upload needs at least one part");
        }
    }

    /** {@code s3://bucket/key}. */
    public String location() {
        return "s3://" + bucket + "/" + key;
    }
}
