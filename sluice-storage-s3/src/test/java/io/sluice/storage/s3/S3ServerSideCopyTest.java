package io.sluice.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.storage.BlobNotFoundException;
import io.sluice.storage.ObjectAddress;
import io.sluice.storage.s3.testing.TcpFaultProxy;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A savepoint's copy of a state file between two S3 locations of the same service (endpoint, region, credentials)
 * is a CopyObject on the server: the data does not pass through the job manager (before, it was downloaded to a
 * local file and uploaded again). Locations of another service still stream.
 */
class S3ServerSideCopyTest {
    private static S3ProxyServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = S3ProxyServer.start("bucket", "other-bucket");
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @Test
    void aCopyWithinOneServiceIsACopyObjectOnTheServer() {
        byte[] data = bytes(3 * 1024 * 1024);
        try (S3BlobStore from = new S3BlobStore("s3://bucket/checkpoints", S3ProxyServer.clientConfiguration(
                server.endpoint()));
             S3BlobStore to = new S3BlobStore("s3://other-bucket/savepoints", S3ProxyServer.clientConfiguration(
                     server.endpoint()))) {
            from.put("chk-1/0-0.state", data);
            long fromCalls = from.apiCalls();

            long copied = to.copyObject(from.objectAddress("chk-1/0-0.state").orElseThrow(), "sp-1/0-0.state");

            assertThat(copied).isEqualTo(data.length);
            assertThat(to.get("sp-1/0-0.state")).isEqualTo(data);
            assertThat(to.apiCalls()).as("HEAD of the source, CopyObject, the get above").isEqualTo(3);
            assertThat(from.apiCalls()).as("nothing read through the source's store").isEqualTo(fromCalls);
        }
    }

    @Test
    void anotherServicesObjectIsNotCopiedOnTheServer() throws Exception {
        try (TcpFaultProxy proxy = new TcpFaultProxy("127.0.0.1", server.port());
             S3BlobStore from = new S3BlobStore("s3://bucket/elsewhere", S3ProxyServer.clientConfiguration(
                     proxy.httpEndpoint()));
             S3BlobStore to = new S3BlobStore("s3://bucket/savepoints", S3ProxyServer.clientConfiguration(
                     server.endpoint()))) {
            from.put("x", new byte[] {1, 2, 3});

            assertThat(to.copyObject(from.objectAddress("x").orElseThrow(), "y")).isEqualTo(-1);
            assertThat(to.apiCalls()).isZero();
            assertThat(to.exists("y")).isFalse();
        }
    }

    @Test
    void aMissingSourceIsBlobNotFoundNamingIt() {
        try (S3BlobStore to = new S3BlobStore("s3://bucket/savepoints", S3ProxyServer.clientConfiguration(
                server.endpoint()))) {
            ObjectAddress missing = to.objectAddress("never-written").orElseThrow();
            assertThatThrownBy(() -> to.copyObject(missing, "copy"))
                    .isInstanceOf(BlobNotFoundException.class)
                    .hasMessageContaining("has no source object bucket/savepoints/never-written to copy");
            assertThat(to.exists("copy")).isFalse();
        }
    }

    @Test
    void aSavepointsCopyOfAStateFileBetweenS3LocationsIsMadeOnTheServer() {
        byte[] state = bytes(100_000);
        try (S3BlobStore checkpoints = new S3BlobStore("s3://bucket/job", S3ProxyServer.clientConfiguration(
                server.endpoint()));
             S3BlobStore savepoints = new S3BlobStore("s3://other-bucket/sp", S3ProxyServer.clientConfiguration(
                     server.endpoint()))) {
            CheckpointStorage from = new CheckpointStorage(checkpoints, new SimpleMeterRegistry());
            CheckpointStorage to = new CheckpointStorage(savepoints, new SimpleMeterRegistry());
            from.writeFile("chk-7/1-0.state", state);
            long fromCalls = checkpoints.apiCalls();

            long bytes = from.streams().copyTo("chk-7/1-0.state", to, "savepoint-7/1-0.state");

            assertThat(to.readTaskState("savepoint-7/1-0.state")).isEqualTo(state);
            assertThat(bytes).isEqualTo(savepoints.get("savepoint-7/1-0.state").length);
            assertThat(checkpoints.apiCalls()).as("not downloaded").isEqualTo(fromCalls);
        }
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }
}
