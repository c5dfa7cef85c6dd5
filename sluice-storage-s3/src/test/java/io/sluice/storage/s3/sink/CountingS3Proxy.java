package io.sluice.storage.s3.sink;

import io.sluice.config.Configuration;
import io.sluice.storage.s3.S3Options;
import io.sluice.storage.s3.S3ProxyServer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.MultipartPart;
import org.jclouds.blobstore.domain.MultipartUpload;
import org.jclouds.blobstore.util.ForwardingBlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * S3Proxy in this JVM whose store counts the multipart uploads it completes and aborts, so that a test can
 * prove that uncommitted uploads existed and were aborted, and fails completions on demand; and a reader that lists and reads the bucket
 * through S3 as any consumer would.
 *
 * <p>The store is jclouds' {@code filesystem} store in a temporary directory, not the in-memory
 * {@code transient-nio2} store of {@link S3ProxyServer}: that one supports multipart uploads,
 * ListMultipartUploads and AbortMultipartUpload, but a part upload cut off mid-body (a task cancelled
 * while it uploads: the SDK aborts the request on interrupt) leaves a half-written part without its
 * {@code user.content-md5} attribute, and from then on every listing of the bucket, of objects and of
 * uploads, fails with HTTP 400 ({@code attribute 'user:user.content-md5' is not set}). Real S3 discards an
 * incomplete part; the filesystem store writes a part to a temporary file and drops it, as S3 does.
 */
final class CountingS3Proxy implements AutoCloseable {
    final AtomicInteger completed = new AtomicInteger();
    final AtomicInteger aborted = new AtomicInteger();
    /**
     * While set, every CreateMultipartUpload creates the upload and then fails (HTTP 400, which the SDK does not
     * retry), as when the answer is lost: the client never learns the upload's id. Counted in {@link #lostCreates}.
     */
    final java.util.concurrent.atomic.AtomicBoolean loseCreateAnswers = new java.util.concurrent.atomic.AtomicBoolean();
    /**
     * The next this many CreateMultipartUploads create the upload and then fail with HTTP 500, which the SDK
     * retries (as it does a connection cut or an attempt timed out): its retry succeeds once the count is used up.
     * Counted in {@link #lostCreates}.
     */
    final AtomicInteger createAnswersToLose = new AtomicInteger();
    final AtomicInteger lostCreates = new AtomicInteger();
    /** Upload id -> whether its create fails with an error the SDK retries. */
    private final java.util.Map<String, Boolean> losing = new java.util.concurrent.ConcurrentHashMap<>();
    /** While set, every CompleteMultipartUpload fails (HTTP 400) and completes nothing: commits fail, writes work. */
    final java.util.concurrent.atomic.AtomicBoolean failCompletes = new java.util.concurrent.atomic.AtomicBoolean();
    private final BlobStoreContext context;
    private final S3Proxy proxy;
    private final S3Client reader;

    /** S3Proxy on jclouds' {@code filesystem} store in {@code directory} (a fresh one per server). */
    CountingS3Proxy(String bucket, java.nio.file.Path directory) throws Exception {
        java.util.Properties props = new java.util.Properties();
        props.setProperty("jclouds.filesystem.basedir", directory.toString());
        context = ContextBuilder.newBuilder("filesystem").credentials("identity", "credential")
                .overrides(props).build(BlobStoreContext.class);
        ForwardingBlobStore counting = new ForwardingBlobStore(context.getBlobStore()) {
            @Override
            public String completeMultipartUpload(MultipartUpload mpu, List<MultipartPart> parts) {
                if (failCompletes.get()) {
                    throw new IllegalStateException("injected: this store fails every complete upload for now");
                }
                String eTag = super.completeMultipartUpload(mpu, parts);
                completed.incrementAndGet();
                return eTag;
            }

            @Override
            public MultipartUpload initiateMultipartUpload(String container, org.jclouds.blobstore.domain.BlobMetadata
                    blobMetadata, org.jclouds.blobstore.options.PutOptions options) {
                MultipartUpload created = super.initiateMultipartUpload(container, blobMetadata, options);
                if (loseCreateAnswers.get()) {
                    losing.put(created.id(), false);
                } else if (createAnswersToLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    losing.put(created.id(), true);
                }
                return created;
            }

            // S3Proxy writes a stub blob named after the upload id once the store initiated the upload; the
            // answer is "lost" after that, so the upload is whole (listed, abortable) as on S3
            @Override
            public String putBlob(String container, org.jclouds.blobstore.domain.Blob blob) {
                return lostAfter(blob, super.putBlob(container, blob));
            }

            @Override
            public String putBlob(String container, org.jclouds.blobstore.domain.Blob blob,
                                  org.jclouds.blobstore.options.PutOptions options) {
                return lostAfter(blob, super.putBlob(container, blob, options));
            }

            private String lostAfter(org.jclouds.blobstore.domain.Blob blob, String eTag) {
                Boolean retryable = losing.remove(blob.getMetadata().getName());
                if (retryable != null) {
                    lostCreates.incrementAndGet();
                    String message = "injected: the upload was created, its answer is lost";
                    // S3Proxy answers an IllegalStateException with 400, an HttpResponseException without a
                    // response with 500
                    throw retryable ? new org.jclouds.http.HttpResponseException(message, null, null)
                            : new IllegalStateException(message);
                }
                return eTag;
            }

            @Override
            public void abortMultipartUpload(MultipartUpload mpu) {
                super.abortMultipartUpload(mpu);
                aborted.incrementAndGet();
            }
        };
        proxy = S3Proxy.builder().blobStore(counting).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)
                .ignoreUnknownHeaders(true).build();
        proxy.start();
        org.awaitility.Awaitility.await("S3Proxy to start").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(5)).until(() -> "STARTED".equals(proxy.getState()));
        context.getBlobStore().createContainerInLocation(null, bucket);
        reader = S3Client.builder().endpointOverride(URI.create(endpoint())).region(Region.US_EAST_1)
                .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
                .build();
    }

    int port() {
        return proxy.getPort();
    }

    String endpoint() {
        return "http://127.0.0.1:" + port();
    }

    /** The sink's S3 settings for {@code endpoint} (this server or a fault proxy before it): short timeouts, no keys. */
    static Configuration sinkOptions(String endpoint) {
        Configuration c = S3ProxyServer.clientConfiguration(endpoint);
        Map<String, String> noKeys = new TreeMap<>(c.toMap());
        noKeys.remove(S3Options.ACCESS_KEY.key());
        noKeys.remove(S3Options.SECRET_KEY.key());
        return new Configuration(noKeys);
    }

    /**
     * The filesystem store writes an object (a completed upload, too) to {@code <key>-<uuid>} and renames it
     * into place, and lists that temporary file meanwhile; real S3 lists an object only once it is whole.
     */
    private static final java.util.regex.Pattern STORE_TEMP_FILE =
            java.util.regex.Pattern.compile(".*-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    /** The keys a reader lists under {@code prefix} (ListObjectsV2, all pages; not the store's temporary files), sorted. */
    List<String> visibleKeys(String bucket, String prefix) {
        List<String> keys = new ArrayList<>();
        for (var page : reader.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix))) {
            for (S3Object o : page.contents()) {
                if (!STORE_TEMP_FILE.matcher(o.key()).matches()) {
                    keys.add(o.key());
                }
            }
        }
        keys.sort(null);
        return keys;
    }

    /** Every line of every object a reader lists under {@code prefix}, object by object in key order. */
    List<String> visibleLines(String bucket, String prefix) {
        List<String> lines = new ArrayList<>();
        for (String key : visibleKeys(bucket, prefix)) {
            String text = reader.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asString(StandardCharsets.UTF_8);
            if (!text.isEmpty() && !text.endsWith("\n")) {
                throw new AssertionError("object " + key + " does not end with a whole line: a partial object");
            }
            lines.addAll(text.isEmpty() ? List.of() : List.of(text.split("\n", -1)).subList(0, text.split("\n", -1).length - 1));
        }
        return lines;
    }

    /** The lines of object {@code key}. */
    List<String> objectLines(String bucket, String key) {
        String text = reader.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asString(StandardCharsets.UTF_8);
        return text.isEmpty() ? List.of() : List.of(text.substring(0, text.length() - 1).split("\n", -1));
    }

    /** What the backing store says when listed directly, every blob with its size; for diagnosing S3Proxy errors. */
    String rawListing(String bucket) {
        StringBuilder out = new StringBuilder();
        try {
            var options = org.jclouds.blobstore.options.ListContainerOptions.Builder.recursive();
            for (var m : context.getBlobStore().list(bucket, options)) {
                out.append(m.getName()).append(' ').append(m.getSize()).append('\n');
            }
            for (var u : context.getBlobStore().listMultipartUploads(bucket)) {
                out.append("upload ").append(u.blobName()).append(' ').append(u.id()).append('\n');
            }
        } catch (RuntimeException e) {
            out.append("listing failed: ").append(e);
        }
        return out.toString();
    }

    /** Keys of the multipart uploads still open under {@code prefix}. */
    List<String> openUploads(String bucket, String prefix) {
        try {
            return reader.listMultipartUploads(b -> b.bucket(bucket).prefix(prefix)).uploads()
                    .stream().map(u -> u.key()).sorted().toList();
        } catch (RuntimeException e) {
            throw new AssertionError("S3Proxy cannot list the multipart uploads (" + e + "); its store holds:\n"
                    + rawListing(bucket), e);
        }
    }

    /**
     * Gives this JVM's S3 sinks S3Proxy's credentials as the task managers' system properties
     * {@code sluice.s3.access-key}/{@code sluice.s3.secret-key} (a sink does not carry them); undo with
     * {@link #clearCredentials}.
     */
    static void credentialsAsSystemProperties() {
        System.setProperty(S3Options.SYSTEM_PROPERTY_PREFIX + S3Options.ACCESS_KEY.key(), S3ProxyServer.ACCESS_KEY);
        System.setProperty(S3Options.SYSTEM_PROPERTY_PREFIX + S3Options.SECRET_KEY.key(), S3ProxyServer.SECRET_KEY);
    }

    static void clearCredentials() {
        System.clearProperty(S3Options.SYSTEM_PROPERTY_PREFIX + S3Options.ACCESS_KEY.key());
        System.clearProperty(S3Options.SYSTEM_PROPERTY_PREFIX + S3Options.SECRET_KEY.key());
    }

    @Override
    public void close() throws Exception {
        try {
            reader.close();
            proxy.stop();
        } finally {
            context.close();
        }
    }
}
