package io.sluice.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.storage.BlobContent;
import io.sluice.storage.StorageException;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Completing a multipart upload takes as long as S3 needs to assemble the object, which can be far longer than the
 * few seconds an ordinary request may take. Found by the large-state benchmark on S3 (docs/benchmarks.md): a
 * savepoint's 700 MB state file failed because its CompleteMultipartUpload was cut off after
 * {@code s3.api-call-attempt-timeout} (5 s) and the retry found the upload in the middle of its completion. Here
 * the server assembles the object at once and answers 5 s later, past the attempt and socket timeouts of the
 * client below (3 s). The parts are small (5 MiB) and their timeouts leave room for a loaded machine: with 1 s per
 * attempt, an 8 MiB part upload on a busy CI machine ran out of time before the completion was reached.
 */
class S3MultipartCompletionTest {
    private static final int MIB = 1024 * 1024;
    private static S3ProxyServer server;
    private static int run;

    @BeforeAll
    static void startServer() throws Exception {
        server = S3ProxyServer.startWithSlowCompletions(Duration.ofSeconds(5), "bucket");
    }

    @AfterEach
    void letTheServerAnswer() {
        server.awaitNoCompletionAnswering(); // the answer to a completion a client gave up on, before the next test
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    private static Configuration quickTimeouts() {
        return S3ProxyServer.clientConfiguration(server.endpoint())
                .set(S3Options.API_CALL_ATTEMPT_TIMEOUT, Duration.ofSeconds(3))
                .set(S3Options.SOCKET_TIMEOUT, Duration.ofSeconds(3))
                .set(S3Options.API_CALL_TIMEOUT, Duration.ofSeconds(9))
                .set(S3Options.MULTIPART_THRESHOLD, 5L * MIB)
                .set(S3Options.PART_SIZE, 5L * MIB);
    }

    @Test
    void aCompletionSlowerThanTheOrdinaryTimeoutsWaitsForS3sAnswer() {
        byte[] data = bytes(11 * MIB); // above the 5 MiB multipart threshold: 3 parts
        try (S3BlobStore store = new S3BlobStore("s3://bucket/run-" + (++run), quickTimeouts())) {
            long before = store.apiCalls();
            store.put("large", BlobContent.of(data));

            assertThat(store.get("large")).isEqualTo(data);
            // create + 3 parts + one completion (no retry, no check of the object) + the get
            assertThat(store.apiCalls() - before).isEqualTo(6);
        }
    }

    @Test
    void aCompletionRetriedAfterS3CarriedItOutFindsTheObjectAndSucceeds() {
        byte[] data = bytes(11 * MIB);
        // 2 s per attempt, 8 s for the call: attempt 1 gives up before the server's answer, a later one gets in
        Configuration conf = quickTimeouts().set(S3Options.COMPLETE_UPLOAD_TIMEOUT, Duration.ofSeconds(2));
        try (S3BlobStore store = new S3BlobStore("s3://bucket/run-" + (++run), conf)) {
            long before = store.apiCalls();
            store.put("large", BlobContent.of(data)); // attempt 1 gives up after 2 s; a retry finds no upload

            assertThat(store.get("large")).isEqualTo(data);
            // create + 3 parts + the completion (its SDK retries not counted) + the check of the object + the get
            assertThat(store.apiCalls() - before).isEqualTo(7);
        }
    }

    @Test
    void aCompletionThatRunsOutOfItsTimeoutIsReportedWithThatOption() {
        byte[] data = bytes(11 * MIB);
        Configuration conf = quickTimeouts().set(S3Options.COMPLETE_UPLOAD_TIMEOUT, Duration.ofSeconds(1))
                .set(S3Options.MAX_RETRIES, 0);
        try (S3BlobStore store = new S3BlobStore("s3://bucket/run-" + (++run), conf)) {
            assertThatThrownBy(() -> store.put("large", BlobContent.of(data)))
                    .isInstanceOf(StorageException.class)
                    .hasMessageContaining("during put large")
                    .hasMessageContaining("timed out (completing the multipart upload took longer than"
                            + " s3.complete-upload-timeout=1 s per attempt)")
                    .hasMessageNotContaining("s3.api-call");
        }
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }
}
