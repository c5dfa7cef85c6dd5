package io.sluice.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.storage.BlobContent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link S3ProxyServer#startOnDisk}, the server of the large-state benchmark on S3: objects written through
 * {@link S3BlobStore} (one PUT, and a multipart upload) are files under {@code <baseDir>/<bucket>/<key>} with their
 * exact bytes, and a deleted object's file is gone (the benchmark measures uploads by the files in the bucket).
 */
class S3ProxyServerOnDiskTest {
    private static final int MIB = 1024 * 1024;

    @Test
    void objectsAreFilesUnderTheBucketsDirectory(@TempDir Path base) throws Exception {
        byte[] small = bytes(1000, 1);
        byte[] large = bytes(20 * MIB, 2); // above the default 16 MiB multipart threshold: 3 parts of 8 MiB
        try (S3ProxyServer server = S3ProxyServer.startOnDisk(base, "bucket");
             S3BlobStore store = new S3BlobStore("s3://bucket/prefix",
                     S3ProxyServer.clientConfiguration(server.endpoint()))) {
            store.put("a/small", small);
            store.put("b/large", BlobContent.of(large));

            assertThat(Files.readAllBytes(base.resolve("bucket/prefix/a/small"))).isEqualTo(small);
            assertThat(Files.readAllBytes(base.resolve("bucket/prefix/b/large"))).isEqualTo(large);
            assertThat(store.get("b/large")).isEqualTo(large);
            assertThat(server.objectCount("bucket")).isEqualTo(2);
            assertThat(filesUnder(base.resolve("bucket/prefix"))).isEqualTo(2); // no part left beside them

            store.delete("b/large");
            assertThat(base.resolve("bucket/prefix/b/large")).doesNotExist();
            assertThat(store.list("")).containsExactly("a/small");
        }
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static long filesUnder(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).count();
        }
    }
}
