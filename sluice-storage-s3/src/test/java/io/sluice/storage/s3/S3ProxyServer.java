package io.sluice.storage.s3;

import io.sluice.config.Configuration;
import java.net.URI;
import java.time.Duration;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

/**
 * A real S3-compatible server in this JVM: S3Proxy on a free local port with the in-memory
 * {@code transient-nio2} jclouds provider and AWS v2/v4 authentication. For tests and the benchmark.
 */
public final class S3ProxyServer implements AutoCloseable {
    public static final String ACCESS_KEY = "sluice-access";
    public static final String SECRET_KEY = "sluice-secret";

    private final BlobStoreContext context;
    private final S3Proxy proxy;
    private final WholeUploads store;

    private S3ProxyServer(BlobStoreContext context, S3Proxy proxy, WholeUploads store) {
        this.context = context;
        this.proxy = proxy;
        this.store = store;
    }

    /**
     * Starts the server and creates {@code buckets}. It ignores request headers it does not know, such
     * as the {@code x-amz-checksum-crc32} that the SDK adds to DeleteObjects (S3Proxy 2.6.0 would
     * answer 501 otherwise).
     */
    public static S3ProxyServer start(String... buckets) throws Exception {
        return start(true, buckets);
    }

    /** Starts the server; with {@code ignoreUnknownHeaders} false it rejects DeleteObjects with 501. */
    public static S3ProxyServer start(boolean ignoreUnknownHeaders, String... buckets) throws Exception {
        return start(ContextBuilder.newBuilder("transient-nio2").credentials("identity", "credential")
                .overrides(new Properties()).build(BlobStoreContext.class), ignoreUnknownHeaders, Duration.ZERO,
                buckets);
    }

    /**
     * Starts an in-memory server that answers every CompleteMultipartUpload {@code completionDelay} after it has
     * assembled the object, as S3 may when it takes long to assemble a large one: the object exists before the
     * client hears so, and a client that gives up and retries finds the upload gone.
     */
    public static S3ProxyServer startWithSlowCompletions(Duration completionDelay, String... buckets)
            throws Exception {
        return start(ContextBuilder.newBuilder("transient-nio2").credentials("identity", "credential")
                .overrides(new Properties()).build(BlobStoreContext.class), true, completionDelay, buckets);
    }

    /**
     * Starts the server on the {@code filesystem-nio2} provider: every object is a file under
     * {@code baseDir/<bucket>/<key>} (its metadata in extended attributes), so that it can hold more than the
     * heap (the large-state benchmark on S3) and the files a bucket holds can be counted on disk. The file
     * system of {@code baseDir} must support user extended attributes (ext4, xfs, tmpfs do).
     */
    public static S3ProxyServer startOnDisk(java.nio.file.Path baseDir, String... buckets) throws Exception {
        Properties props = new Properties();
        props.setProperty("jclouds.filesystem.basedir", baseDir.toAbsolutePath().toString());
        return start(ContextBuilder.newBuilder("filesystem-nio2").credentials("identity", "credential")
                .overrides(props).build(BlobStoreContext.class), true, Duration.ZERO, buckets);
    }

    private static S3ProxyServer start(BlobStoreContext context, boolean ignoreUnknownHeaders,
                                       Duration completionDelay, String... buckets) throws Exception {
        WholeUploads store = new WholeUploads(context.getBlobStore(), completionDelay);
        S3Proxy proxy = S3Proxy.builder().blobStore(store)
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .ignoreUnknownHeaders(ignoreUnknownHeaders)
                .build();
        proxy.start();
        org.awaitility.Awaitility.await("S3Proxy to start").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(5)).until(() -> "STARTED".equals(proxy.getState()));
        for (String bucket : buckets) {
            context.getBlobStore().createContainerInLocation(null, bucket);
        }
        return new S3ProxyServer(context, proxy, store);
    }

    /**
     * Reads an upload's whole body before the store sees it. The in-memory store writes the body to a
     * temporary object next to the key and renames it when complete; a client that dies mid-upload (a
     * task manager SIGKILLed while it uploads RocksDB's table files) left that temporary object behind
     * without its attributes, and every later listing of its prefix failed ("attribute
     * 'user:user.content-md5' is not set"; S3 answered 400 to the job's clean-up, for good). On S3 an
     * interrupted PUT stores nothing; read first, an interrupted upload fails here and stores nothing too.
     * Multipart uploads are passed through.
     */
    private static final class WholeUploads extends org.jclouds.blobstore.util.ForwardingBlobStore {
        private final Duration completionDelay;
        private final java.util.concurrent.atomic.AtomicInteger completionsAnswering =
                new java.util.concurrent.atomic.AtomicInteger();
        private final java.util.concurrent.atomic.AtomicInteger copies = new java.util.concurrent.atomic.AtomicInteger();

        WholeUploads(org.jclouds.blobstore.BlobStore delegate, Duration completionDelay) {
            super(delegate);
            this.completionDelay = completionDelay;
        }

        @Override
        public String completeMultipartUpload(org.jclouds.blobstore.domain.MultipartUpload upload,
                                              java.util.List<org.jclouds.blobstore.domain.MultipartPart> parts) {
            String eTag = super.completeMultipartUpload(upload, parts);
            if (!completionDelay.isZero()) {
                completionsAnswering.incrementAndGet();
                try {
                    Thread.sleep(completionDelay.toMillis()); // a slow answer is what this server simulates
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    completionsAnswering.decrementAndGet();
                }
            }
            return eTag;
        }

        @Override
        public String copyBlob(String fromContainer, String fromName, String toContainer, String toName,
                               org.jclouds.blobstore.options.CopyOptions options) {
            String eTag = super.copyBlob(fromContainer, fromName, toContainer, toName, options);
            copies.incrementAndGet();
            return eTag;
        }

        @Override
        public String putBlob(String container, org.jclouds.blobstore.domain.Blob blob) {
            return super.putBlob(container, buffered(blob));
        }

        @Override
        public String putBlob(String container, org.jclouds.blobstore.domain.Blob blob,
                              org.jclouds.blobstore.options.PutOptions options) {
            return super.putBlob(container, options.isMultipart() ? blob : buffered(blob), options);
        }

        private static org.jclouds.blobstore.domain.Blob buffered(org.jclouds.blobstore.domain.Blob blob) {
            org.jclouds.io.Payload payload = blob.getPayload();
            if (payload == null) {
                return blob;
            }
            // transferTo, not readAllBytes: S3Proxy's stream of an aws-chunked body ends at a read of 0 bytes, which
            // readAllBytes makes when its first 8 KiB buffer is full (the body was cut to 8192 bytes).
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            try (java.io.InputStream in = payload.openStream()) {
                in.transferTo(bytes);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("upload of " + blob.getMetadata().getName() + " interrupted", e);
            }
            org.jclouds.io.MutableContentMetadata metadata = payload.getContentMetadata();
            org.jclouds.io.Payload whole = org.jclouds.io.Payloads.newByteArrayPayload(bytes.toByteArray());
            whole.setContentMetadata(metadata);
            blob.setPayload(whole);
            return blob;
        }
    }

    /**
     * Waits until no completion of a {@link #startWithSlowCompletions} server is still waiting to answer (one whose
     * client gave up), so that one test's slow answers do not overlap the next test.
     */
    public void awaitNoCompletionAnswering() {
        org.awaitility.Awaitility.await("slow completions to answer").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20)).until(() -> store.completionsAnswering.get() == 0);
    }

    /** The number of objects copied on the server (CopyObject requests that succeeded) since the server started. */
    public int copies() {
        return store.copies.get();
    }

    public int port() {
        return proxy.getPort();
    }

    public String endpoint() {
        return "http://127.0.0.1:" + port();
    }

    /** Number of objects in {@code bucket} (read directly from the backing store, not through S3). */
    public long objectCount(String bucket) {
        return objectCount(bucket, null);
    }

    /**
     * Number of objects in {@code bucket} whose key starts with {@code prefix} (all when null), read directly.
     * The in-memory store lists an object that is still being written before its attributes are set and then
     * throws {@link IllegalArgumentException} ("attribute 'user:user.content-md5' is not set", seen in CI while
     * a job wrote checkpoints): the listing is repeated until one completes.
     */
    public long objectCount(String bucket, String prefix) {
        return org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                .pollInterval(java.time.Duration.ofMillis(20))
                .ignoreExceptionsInstanceOf(IllegalArgumentException.class)
                .until(() -> (long) keysOnce(bucket, prefix).size(), n -> true);
    }

    /** The bytes of the object {@code key} in {@code bucket}, read directly from the backing store; null if none. */
    public byte[] objectBytes(String bucket, String key) throws java.io.IOException {
        org.jclouds.blobstore.domain.Blob blob = context.getBlobStore().getBlob(bucket, key);
        if (blob == null) {
            return null;
        }
        try (java.io.InputStream in = blob.getPayload().openStream()) {
            return in.readAllBytes();
        }
    }

    /**
     * Writes {@code data} as object {@code key} of {@code bucket} directly in the backing store: a test's setup that
     * is not what it tests, without HTTP (a large PUT through S3Proxy can be answered 400 on a loaded machine).
     */
    public void putObject(String bucket, String key, byte[] data) {
        org.jclouds.blobstore.BlobStore store = context.getBlobStore();
        store.putBlob(bucket, store.blobBuilder(key).payload(data).contentLength(data.length).build());
    }

    /** The keys of the objects in {@code bucket} under {@code prefix}, sorted, read directly from the backing store. */
    public java.util.List<String> keys(String bucket, String prefix) {
        return org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                .pollInterval(java.time.Duration.ofMillis(20))
                .ignoreExceptionsInstanceOf(IllegalArgumentException.class)
                .until(() -> keysOnce(bucket, prefix), k -> true);
    }

    /**
     * Copies every object under {@code fromPrefix} to the same key under {@code toPrefix} and deletes the originals,
     * directly in the backing store: what a user's {@code aws s3 mv --recursive} does. Returns the number moved.
     */
    public int move(String bucket, String fromPrefix, String toPrefix) {
        java.util.List<String> keys = keys(bucket, fromPrefix);
        for (String key : keys) {
            context.getBlobStore().copyBlob(bucket, key, bucket, toPrefix + key.substring(fromPrefix.length()),
                    org.jclouds.blobstore.options.CopyOptions.NONE);
            context.getBlobStore().removeBlob(bucket, key);
        }
        return keys.size();
    }

    /** Deletes every object under {@code prefix}, directly in the backing store. Returns the number deleted. */
    public int deleteAll(String bucket, String prefix) {
        java.util.List<String> keys = keys(bucket, prefix);
        keys.forEach(key -> context.getBlobStore().removeBlob(bucket, key));
        return keys.size();
    }

    private java.util.List<String> keysOnce(String bucket, String prefix) {
        java.util.List<String> keys = new java.util.ArrayList<>();
        var options = org.jclouds.blobstore.options.ListContainerOptions.Builder.recursive();
        if (prefix != null) {
            options = options.prefix(prefix);
        }
        for (var page = context.getBlobStore().list(bucket, options); ; ) {
            page.stream().filter(m -> m.getType() == org.jclouds.blobstore.domain.StorageType.BLOB)
                    .forEach(m -> keys.add(m.getName()));
            if (page.getNextMarker() == null) {
                java.util.Collections.sort(keys);
                return keys;
            }
            page = context.getBlobStore().list(bucket, options.afterMarker(page.getNextMarker()));
        }
    }

    /**
     * S3 options for a client of this server at {@code endpoint} (this server, or a proxy in front of
     * it), with short timeouts and backoff so that tests of outages stay quick.
     */
    public static Configuration clientConfiguration(String endpoint) {
        return new Configuration()
                .set(S3Options.ENDPOINT, endpoint)
                .set(S3Options.REGION, "us-east-1")
                .set(S3Options.PATH_STYLE_ACCESS, true)
                .set(S3Options.ACCESS_KEY, ACCESS_KEY)
                .set(S3Options.SECRET_KEY, SECRET_KEY)
                .set(S3Options.CONNECT_TIMEOUT, Duration.ofSeconds(1))
                .set(S3Options.SOCKET_TIMEOUT, Duration.ofSeconds(2))
                .set(S3Options.API_CALL_ATTEMPT_TIMEOUT, Duration.ofSeconds(2))
                .set(S3Options.API_CALL_TIMEOUT, Duration.ofSeconds(10))
                .set(S3Options.MAX_RETRIES, 3)
                .set(S3Options.RETRY_BASE_DELAY, Duration.ofMillis(20))
                .set(S3Options.RETRY_MAX_DELAY, Duration.ofMillis(200));
    }

    @Override
    public void close() throws Exception {
        try {
            proxy.stop();
        } finally {
            context.close();
        }
    }
}
