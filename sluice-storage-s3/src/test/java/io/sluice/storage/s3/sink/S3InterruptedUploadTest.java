package io.sluice.storage.s3.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.storage.BlobContent;
import io.sluice.storage.s3.S3BlobStore;
import io.sluice.storage.s3.S3ProxyServer;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link S3BlobStore}: a multipart upload interrupted in the middle (its task cancelled by a failover while it uploads a RocksDB table
 * file) is aborted, so it leaves no open upload behind. Found by the large-state benchmark on S3: "Could not abort
 * multipart upload ... AbortedException: Thread was interrupted" after a task failover, because the SDK starts no
 * call on an interrupted thread. (Here, not beside the store's other tests, for {@link CountingS3Proxy}: a server on
 * jclouds' filesystem store, which lists open multipart uploads.)
 */
class S3InterruptedUploadTest {
    private static final int MIB = 1024 * 1024;

    @Test
    void anInterruptedMultipartUploadIsAbortedAndTheThreadStaysInterrupted(@TempDir Path base) throws Exception {
        try (CountingS3Proxy server = new CountingS3Proxy("bucket", base);
             S3BlobStore store = new S3BlobStore("s3://bucket/p", S3ProxyServer.clientConfiguration(server.endpoint()))) {
            CountDownLatch secondPartReading = new CountDownLatch(1);
            BlobContent blocksInSecondPart = new BlobContent() {
                @Override
                public long length() {
                    return 20L * MIB;
                }

                @Override
                public InputStream open(long offset, long length) {
                    if (offset == 0) {
                        return new ByteArrayInputStream(new byte[(int) length]);
                    }
                    return new InputStream() {
                        @Override
                        public int read() throws InterruptedIOException {
                            secondPartReading.countDown();
                            try {
                                new CountDownLatch(1).await(); // until interrupted: a slow disk
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                throw new InterruptedIOException("interrupted while reading the part");
                            }
                            return -1;
                        }
                    };
                }
            };
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicBoolean stillInterrupted = new AtomicBoolean();
            Thread uploader = new Thread(() -> {
                try {
                    store.put("large", blocksInSecondPart);
                } catch (RuntimeException e) {
                    failure.set(e);
                }
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            }, "uploader");
            uploader.start();
            assertThat(secondPartReading.await(30, TimeUnit.SECONDS)).isTrue();
            uploader.interrupt();
            uploader.join(Duration.ofSeconds(30).toMillis());

            assertThat(uploader.isAlive()).isFalse();
            assertThat(failure.get()).as("the put failed").isNotNull();
            assertThat(stillInterrupted.get()).as("the interrupt is kept for the caller").isTrue();
            assertThat(server.aborted.get()).as("uploads aborted").isEqualTo(1);
            assertThat(server.openUploads("bucket", "p/")).isEmpty();
            assertThat(store.exists("large")).isFalse();
        }
    }
}
