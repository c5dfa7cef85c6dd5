package io.sluice.storage.s3.sink;

import io.sluice.api.sink.Committer;
import io.sluice.storage.s3.MultipartETag;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Makes an {@link S3PartFile} visible by completing its multipart upload, or recognises that it already
 * is: when S3 answers that the upload no longer exists ({@code NoSuchUpload}) and the object exists with
 * the pre-committed length (and, where both are of S3's multipart form, the ETag that its parts give), an
 * earlier commit completed it (a restore commits the restored checkpoint's part files again). A failure
 * to reach S3 throws, and the sink's commit loop retries with backoff.
 *
 * <p>Threading: the subtask's commit thread only (one commit at a time).
 */
final class S3PartFileCommitter implements Committer<S3PartFile> {
    private static final Logger LOG = LoggerFactory.getLogger(S3PartFileCommitter.class);

    private final S3SinkClient client;

    S3PartFileCommitter(S3SinkClient client) {
        this.client = client;
    }

    @Override
    public void commit(S3PartFile file) throws IOException {
        try {
            client.complete(file);
            LOG.debug("S3 exactly-once file sink: committed {}", file.location());
            return;
        } catch (S3Exception e) {
            if (e.statusCode() != 404) {
                throw new IOException(client.describe("complete upload", file.key(), e), e);
            }
            // NoSuchUpload: completed before, or aborted; the object tells which
        }
        Optional<HeadObjectResponse> head = client.head(file.key());
        if (head.isEmpty()) {
            // Neither the upload nor the object exists: the upload was aborted by hand or by a bucket lifecycle
            // rule (AbortIncompleteMultipartUpload shorter than checkpoint plus recovery time), or this is a
            // restore from a checkpoint older than the latest. Nothing can make it visible any more.
            LOG.warn("S3 exactly-once file sink: cannot commit {}: its multipart upload {} no longer exists and the"
                    + " object does not either; its {} bytes are lost (aborted by hand or by a lifecycle rule, or a"
                    + " restore from a checkpoint older than the latest)", file.location(), file.uploadId(),
                    file.length());
            return;
        }
        long length = head.get().contentLength() == null ? -1 : head.get().contentLength();
        String expected = MultipartETag.of(file.parts().stream().map(S3PartFile.Part::eTag).toList());
        String actual = head.get().eTag();
        if (length != file.length() || (expected != null && MultipartETag.isMultipart(actual)
                && !expected.equals(MultipartETag.strip(actual)))) {
            throw new IOException("S3 exactly-once file sink: " + file.location() + " exists, but not as this sink"
                    + " pre-committed it (length " + length + ", expected " + file.length() + "; ETag " + actual
                    + ", expected " + expected + "), and its upload " + file.uploadId() + " is gone: another writer"
                    + " wrote this key. Give each job and each sink its own S3 prefix");
        }
        LOG.debug("S3 exactly-once file sink: {} was committed before", file.location());
    }

    @Override
    public void close() {
        client.close();
    }
}
