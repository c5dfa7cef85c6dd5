package io.sluice.storage.s3.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.Configuration;
import io.sluice.storage.s3.S3BlobStore;
import io.sluice.storage.s3.S3Options;
import io.sluice.storage.s3.S3ProxyServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The S3 file sink's commit completes a multipart upload, which S3 may take long to answer (see
 * {@code S3MultipartCompletionTest}): with attempt and socket timeouts of 1 and 2 s and a server that answers 3 s
 * after assembling the object, the commit waits for the answer (s3.complete-upload-timeout) instead of giving up,
 * retrying and finding the upload gone.
 */
class S3SinkSlowCompletionTest {
    @Test
    void aCommitWhoseCompletionIsSlowerThanTheOrdinaryTimeoutsSucceeds() throws Exception {
        try (S3ProxyServer server = S3ProxyServer.startWithSlowCompletions(Duration.ofSeconds(3), "bucket")) {
            Configuration options = S3Options.effective(S3ProxyServer.clientConfiguration(server.endpoint())
                    .set(S3Options.API_CALL_ATTEMPT_TIMEOUT, Duration.ofSeconds(1))
                    .set(S3Options.SOCKET_TIMEOUT, Duration.ofSeconds(2))
                    .set(S3Options.API_CALL_TIMEOUT, Duration.ofSeconds(2)));
            byte[] data = "one part of the output".getBytes(StandardCharsets.UTF_8);
            S3SinkClient client = new S3SinkClient("bucket", options);
            try (S3PartFileCommitter committer = new S3PartFileCommitter(client)) {
                String uploadId = client.createUpload("out/part-0");
                String eTag = client.uploadPart("out/part-0", uploadId, 1, data, data.length);

                committer.commit(new S3PartFile("bucket", "out/part-0", uploadId, List.of(new S3PartFile.Part(1, eTag)),
                        data.length));
            }
            try (S3BlobStore store = new S3BlobStore("s3://bucket/out", S3ProxyServer.clientConfiguration(
                    server.endpoint()))) {
                assertThat(store.get("part-0")).isEqualTo(data);
            }
        }
    }
}
