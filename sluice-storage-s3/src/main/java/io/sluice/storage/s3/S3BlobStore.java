package io.sluice.storage.s3;

import io.sluice.config.Configuration;
import io.sluice.config.Durations;
import io.sluice.rpc.MainThreads;
import io.sluice.storage.BlobNotFoundException;
import io.sluice.storage.BlobStore;
import io.sluice.storage.StorageException;
import io.sluice.util.Throwables;
import java.io.ByteArrayInputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.s3.LegacyMd5Plugin;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A {@link BlobStore} on Amazon S3 or an S3-compatible store (MinIO, Ceph, S3Proxy) for locations
 * {@code s3://bucket/prefix}: the blob at path {@code p} is the object {@code prefix/p} of
 * {@code bucket}.
 *
 * <ul>
 *   <li>{@link #put}: one PUT, or a multipart upload for blobs above {@code s3.multipart-threshold}
 *       (parts of {@code s3.part-size}; a failed upload is aborted). Either way readers see the
 *       whole object or none of it: S3 publishes an object only when its PUT or its
 *       CompleteMultipartUpload succeeds.</li>
 *   <li>{@link #get}, {@link #exists}: a missing object (404) is {@link BlobNotFoundException}, or
 *       {@code false}.</li>
 *   <li>{@link #list}: ListObjectsV2, following continuation tokens ({@code s3.list-page-size} keys per page).</li>
 *   <li>{@link #deleteRecursively}: lists and deletes with DeleteObjects, at most
 *       {@code s3.delete-batch-size} (≤ 1000) keys per request.</li>
 * </ul>
 *
 * <p><b>Bounded waits.</b> Connect timeout, socket timeout, a per-attempt timeout, a per-call timeout
 * and the retry count with exponential backoff are all set explicitly from {@link S3Options}, so a
 * dead or stalled endpoint turns into a {@link StorageException} after at most
 * {@code s3.api-call-timeout} per request, never a thread stuck for minutes. The message names the
 * location, operation and path and says what happened, for example
 * {@code "Checkpoint storage s3://b/p unreachable (Connection refused) during get k (4 attempts)"};
 * a store opened as the HA storage ({@code high-availability.storage-dir}) says {@code "HA storage ..."}
 * instead (see {@link BlobStore#role()}). An interrupt aborts the call; the interrupt flag stays set.
 *
 * <p>Construction does no I/O: the SDK client (and its region and credential lookup) is created on
 * the first call, which runs on an I/O thread. Every call first checks
 * {@link MainThreads#checkNotMainThread(String)}.
 *
 * <p>Threading: thread-safe. Every method except {@link #describe()} blocks on network I/O.
 * {@link #close()} releases the client's connection pool.
 */
public final class S3BlobStore implements BlobStore, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(S3BlobStore.class);
    private static final Pattern BUCKET = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9._-]{0,254}");

    private final String bucket;
    private final String keyPrefix; // "" or "some/prefix/" (with a trailing slash)
    private final String location;
    private final String role;
    private final Configuration options;
    private final long multipartThreshold;
    private final long partSize;
    private final int listPageSize;
    private final int deleteBatchSize;
    private final AtomicLong apiCalls = new AtomicLong();
    private volatile boolean batchDeleteSupported = true;
    private final Object clientLock = new Object();
    private volatile S3Client client; // created on first use (guarded by clientLock)
    private boolean closed;           // guarded by clientLock

    /**
     * @param location      {@code s3://bucket} or {@code s3://bucket/prefix}
     * @param configuration the {@code s3.*} options (see {@link S3Options}); system properties
     *                      {@code sluice.s3.*} fill in keys it does not set
     * @throws IllegalArgumentException for a malformed location
     * @throws io.sluice.config.IllegalConfigurationException for an invalid option, naming key and value
     */
    public S3BlobStore(String location, Configuration configuration) {
        this(location, configuration, StorageException.CHECKPOINT_STORAGE);
    }

    /**
     * Like {@link #S3BlobStore(String, Configuration)}, for a store in the given role.
     *
     * @param role what the store is for, named in its error messages, for example
     *             {@link StorageException#HA_STORAGE} (see {@link BlobStore#role()})
     */
    public S3BlobStore(String location, Configuration configuration, String role) {
        this.role = java.util.Objects.requireNonNull(role, "role");
        String[] parsed = parseLocation(location);
        this.bucket = parsed[0];
        this.keyPrefix = parsed[1].isEmpty() ? "" : parsed[1] + "/";
        this.location = "s3://" + bucket + (parsed[1].isEmpty() ? "" : "/" + parsed[1]);
        this.options = S3Options.effective(configuration);
        this.multipartThreshold = options.get(S3Options.MULTIPART_THRESHOLD);
        this.partSize = options.get(S3Options.PART_SIZE);
        this.listPageSize = options.get(S3Options.LIST_PAGE_SIZE);
        this.deleteBatchSize = options.get(S3Options.DELETE_BATCH_SIZE);
    }

    /** {@code [bucket, prefix without leading or trailing '/']} of an {@code s3://} location. */
    static String[] parseLocation(String location) {
        if (location == null || !location.regionMatches(true, 0, "s3://", 0, 5)) {
            throw new IllegalArgumentException("S3 location '" + location + "' must look like s3://bucket/prefix");
        }
        String rest = location.substring(5);
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        String prefix = slash < 0 ? "" : rest.substring(slash + 1);
        while (prefix.endsWith("/")) {
            prefix = prefix.substring(0, prefix.length() - 1);
        }
        if (!BUCKET.matcher(bucket).matches()) {
            throw new IllegalArgumentException("S3 location '" + location + "' has no valid bucket name ('" + bucket
                    + "'); use s3://bucket/prefix");
        }
        if (prefix.startsWith("/") || prefix.contains("//") || prefix.contains("\\")) {
            throw new IllegalArgumentException("S3 location '" + location + "' has an invalid prefix '" + prefix
                    + "'; use s3://bucket/some/prefix");
        }
        for (String segment : prefix.split("/")) {
            if (segment.equals("..") || segment.equals(".")) {
                throw new IllegalArgumentException("S3 location '" + location + "' must not contain '.' or '..' segments");
            }
        }
        return new String[] {bucket, prefix};
    }

    public String bucket() {
        return bucket;
    }

    /** The key prefix of every blob: {@code ""} or {@code "prefix/"}. */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** S3 API requests issued by this store (each counted once, however many HTTP attempts it took). */
    public long apiCalls() {
        return apiCalls.get();
    }

    @Override
    public String describe() {
        return location;
    }

    @Override
    public String role() {
        return role;
    }

    @Override
    public void put(String path, byte[] data) {
        String key = key(path);
        call("put", path, () -> {
            if (data.length > multipartThreshold) {
                putMultipart(path, key, data);
            } else {
                apiCalls.incrementAndGet();
                client().putObject(b -> b.bucket(bucket).key(key).contentLength((long) data.length),
                        body(data, 0, data.length));
            }
            return null;
        });
    }

    private void putMultipart(String path, String key, byte[] data) {
        S3Client s3 = client();
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

    @Override
    public byte[] get(String path) {
        String key = key(path);
        return call("get", path, () -> {
            try {
                apiCalls.incrementAndGet();
                return client().getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
            } catch (NoSuchKeyException e) {
                throw notFound(path, e);
            } catch (S3Exception e) {
                if (e.statusCode() == 404 && !(e instanceof NoSuchBucketException)) {
                    throw notFound(path, e);
                }
                throw e;
            }
        });
    }

    private BlobNotFoundException notFound(String path, Throwable cause) {
        return new BlobNotFoundException(StorageException.message(role, location, "has no blob", "get", path)
                + " (it was never written completely, or it was deleted)", cause);
    }

    @Override
    public boolean exists(String path) {
        String key = key(path);
        return call("exists", path, () -> {
            try {
                apiCalls.incrementAndGet();
                client().headObject(b -> b.bucket(bucket).key(key));
                return true;
            } catch (NoSuchKeyException e) {
                return false;
            } catch (S3Exception e) {
                if (e.statusCode() == 404 && !(e instanceof NoSuchBucketException)
                        && !"NoSuchBucket".equals(errorCode(e))) {
                    return false;
                }
                throw e;
            }
        });
    }

    @Override
    public List<String> list(String prefix) {
        if (prefix == null || prefix.startsWith("/") || prefix.contains("\\")) {
            throw new IllegalArgumentException("Blob path prefix must be relative and '/'-separated, not '" + prefix
                    + "' (store " + location + ")");
        }
        return call("list", prefix, () -> {
            List<String> out = new ArrayList<>();
            for (String key : listKeys(keyPrefix + prefix)) {
                out.add(key.substring(keyPrefix.length()));
            }
            out.sort(null);
            return out;
        });
    }

    /** Every full key starting with {@code fullPrefix}, across all pages. */
    private List<String> listKeys(String fullPrefix) {
        S3Client s3 = client();
        List<String> keys = new ArrayList<>();
        String token = null;
        do {
            String continuation = token;
            apiCalls.incrementAndGet();
            ListObjectsV2Response page = s3.listObjectsV2(b -> b.bucket(bucket).prefix(fullPrefix)
                    .maxKeys(listPageSize).continuationToken(continuation));
            for (S3Object o : page.contents()) {
                keys.add(o.key());
            }
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        return keys;
    }

    @Override
    public void delete(String path) {
        String key = key(path);
        call("delete", path, () -> {
            apiCalls.incrementAndGet();
            client().deleteObject(b -> b.bucket(bucket).key(key)); // S3 deletes are idempotent
            return null;
        });
    }

    @Override
    public void deleteRecursively(String prefix) {
        String top;
        if (prefix == null || prefix.isEmpty()) {
            top = null; // the whole store
        } else {
            String k = key(prefix);
            top = k;
        }
        call("deleteRecursively", prefix, () -> {
            // A writer may add a blob while we delete (a late upload into an aborted checkpoint): list again
            // a few times rather than leave objects behind.
            for (int pass = 0; pass < 3; pass++) {
                List<String> keys = listKeys(top == null ? keyPrefix : top + "/");
                if (top != null && pass == 0) {
                    keys.add(top);
                }
                if (keys.isEmpty()) {
                    return null;
                }
                deleteKeys(prefix, keys);
            }
            return null;
        });
    }

    private void deleteKeys(String prefix, List<String> keys) {
        S3Client s3 = client();
        for (int from = 0; from < keys.size(); from += deleteBatchSize) {
            List<ObjectIdentifier> batch = new ArrayList<>();
            for (String k : keys.subList(from, Math.min(keys.size(), from + deleteBatchSize))) {
                batch.add(ObjectIdentifier.builder().key(k).build());
            }
            if (!batchDeleteSupported) {
                deleteOneByOne(s3, batch);
                continue;
            }
            DeleteObjectsResponse response;
            try {
                apiCalls.incrementAndGet();
                response = s3.deleteObjects(b -> b.bucket(bucket).delete(d -> d.objects(batch).quiet(true)));
            } catch (S3Exception e) {
                if (e.statusCode() != 501) {
                    throw e;
                }
                // The store does not implement DeleteObjects (or its checksum headers): delete key by key.
                batchDeleteSupported = false;
                LOG.warn("{} does not support batched deletes (DeleteObjects answered HTTP 501: {}); deleting one"
                        + " object per request from now on", location, errorMessage(e));
                deleteOneByOne(s3, batch);
                continue;
            }
            List<S3Error> errors = response.errors().stream()
                    .filter(e -> !"NoSuchKey".equals(e.code())).toList();
            if (!errors.isEmpty()) {
                S3Error first = errors.get(0);
                throw new StorageException(StorageException.message(role, location, "failed (" + errors.size() + " of "
                        + batch.size() + " keys not deleted; first: " + first.key() + ": " + first.code() + " "
                        + first.message() + ")", "deleteRecursively", prefix));
            }
        }
    }

    private void deleteOneByOne(S3Client s3, List<ObjectIdentifier> batch) {
        for (ObjectIdentifier id : batch) {
            apiCalls.incrementAndGet();
            s3.deleteObject(b -> b.bucket(bucket).key(id.key()));
        }
    }

    /** Whether DeleteObjects is used; false once the store answered it with HTTP 501 Not Implemented. */
    public boolean batchDeleteSupported() {
        return batchDeleteSupported;
    }

    @Override
    public void close() {
        S3Client c;
        synchronized (clientLock) {
            closed = true;
            c = client;
            client = null;
        }
        if (c != null) {
            c.close();
        }
    }

    @Override
    public String toString() {
        return "S3BlobStore[" + location + "]";
    }

    // ------------------------------------------------------------------------------------------------

    private String key(String path) {
        if (path == null || path.isEmpty() || path.startsWith("/") || path.contains("\\")) {
            throw new IllegalArgumentException("Blob path must be a non-empty relative '/'-separated key, not '"
                    + path + "' (store " + location + ")");
        }
        for (String segment : path.split("/", -1)) {
            if (segment.equals("..") || segment.equals(".") || segment.isEmpty()) {
                throw new IllegalArgumentException("Blob path '" + path + "' must not contain empty, '.' or '..'"
                        + " segments (store " + location + ")");
            }
        }
        return keyPrefix + path;
    }

    private <T> T call(String op, String path, Supplier<T> action) {
        MainThreads.checkNotMainThread("storage " + op + " " + path + " on " + location);
        try {
            return action.get();
        } catch (StorageException e) {
            throw e;
        } catch (SdkException | IllegalStateException e) {
            throw translate(op, path, e);
        }
    }

    /** Turns an SDK failure into a {@link StorageException} whose message says what happened, in words. */
    private StorageException translate(String op, String path, RuntimeException e) {
        String problem;
        Throwable connect = find(e, ConnectException.class);
        if (find(e, AbortedException.class) != null || find(e, InterruptedException.class) != null
                || (Thread.currentThread().isInterrupted() && !(e instanceof S3Exception))) {
            Thread.currentThread().interrupt();
            problem = "call interrupted";
        } else if (connect != null) {
            String m = String.valueOf(connect.getMessage());
            problem = "unreachable (" + (m.contains("Connection refused") ? "Connection refused" : m) + ")";
        } else if (find(e, ApiCallTimeoutException.class) != null) {
            problem = "timed out (no answer within " + S3Options.API_CALL_TIMEOUT.key() + "="
                    + Durations.format(options.get(S3Options.API_CALL_TIMEOUT)) + ", retries included)";
        } else if (find(e, ApiCallAttemptTimeoutException.class) != null) {
            problem = "timed out (every attempt exceeded " + S3Options.API_CALL_ATTEMPT_TIMEOUT.key() + "="
                    + Durations.format(options.get(S3Options.API_CALL_ATTEMPT_TIMEOUT)) + ")";
        } else if (find(e, SocketTimeoutException.class) != null) {
            problem = "timed out (no data within " + S3Options.SOCKET_TIMEOUT.key() + "="
                    + Durations.format(options.get(S3Options.SOCKET_TIMEOUT)) + ")";
        } else if (find(e, InterruptedIOException.class) != null) {
            problem = "timed out (" + find(e, InterruptedIOException.class).getMessage() + ")";
        } else if (e instanceof S3Exception s3e) {
            String code = errorCode(s3e);
            if ("NoSuchBucket".equals(code) || s3e instanceof NoSuchBucketException) {
                problem = "failed (bucket '" + bucket + "' does not exist)";
            } else {
                problem = "failed (HTTP " + s3e.statusCode() + (code == null ? "" : " " + code) + ": "
                        + errorMessage(s3e) + ")";
            }
        } else if (e instanceof IllegalStateException) {
            problem = "unavailable (" + e.getMessage() + ")";
        } else {
            problem = "failed (" + StorageException.describeCause(Throwables.rootCause(e)) + ")";
        }
        String message = StorageException.message(role, location, problem, op, path);
        if (e instanceof SdkException sdk && sdk.numAttempts() != null && sdk.numAttempts() > 1) {
            message += " (" + sdk.numAttempts() + " attempts)";
        }
        return new StorageException(message, e);
    }

    private static String errorCode(S3Exception e) {
        return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    }

    private static String errorMessage(S3Exception e) {
        if (e.awsErrorDetails() != null && e.awsErrorDetails().errorMessage() != null) {
            return e.awsErrorDetails().errorMessage();
        }
        return e.getMessage();
    }

    private static <X extends Throwable> X find(Throwable t, Class<X> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
            for (Throwable s : c.getSuppressed()) {
                if (type.isInstance(s)) {
                    return type.cast(s);
                }
            }
        }
        return null;
    }

    private S3Client client() {
        S3Client c = client;
        if (c != null) {
            return c;
        }
        synchronized (clientLock) {
            if (closed) {
                throw new IllegalStateException("the S3 store " + location + " is closed");
            }
            if (client == null) {
                client = buildClient();
            }
            return client;
        }
    }

    private S3Client buildClient() {
        String endpoint = options.get(S3Options.ENDPOINT);
        S3ClientBuilder builder = S3Client.builder()
                .httpClientBuilder(ApacheHttpClient.builder()
                        .connectionTimeout(options.get(S3Options.CONNECT_TIMEOUT))
                        .socketTimeout(options.get(S3Options.SOCKET_TIMEOUT))
                        .connectionAcquisitionTimeout(options.get(S3Options.CONNECT_TIMEOUT))
                        .maxConnections(options.get(S3Options.MAX_CONNECTIONS)))
                .forcePathStyle(options.get(S3Options.PATH_STYLE_ACCESS))
                // Checksums only where the API requires them: S3-compatible stores reject the newer default
                // (flexible checksums on every PUT) with HTTP 400.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                // Content-MD5 as well where a checksum is required (DeleteObjects), for S3-compatible stores
                // that predate flexible checksums.
                .addPlugin(LegacyMd5Plugin.create())
                .overrideConfiguration(ClientOverrideConfiguration.builder()
                        .apiCallAttemptTimeout(options.get(S3Options.API_CALL_ATTEMPT_TIMEOUT))
                        .apiCallTimeout(options.get(S3Options.API_CALL_TIMEOUT))
                        .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                .maxAttempts(options.get(S3Options.MAX_RETRIES) + 1)
                                .backoffStrategy(BackoffStrategy.exponentialDelay(
                                        options.get(S3Options.RETRY_BASE_DELAY), options.get(S3Options.RETRY_MAX_DELAY)))
                                // No client-wide retry budget: every call gets its configured retries, so the
                                // bound on a call does not depend on how many failed before it.
                                .circuitBreakerEnabled(false)
                                .build())
                        .build());
        if (!endpoint.isEmpty()) {
            builder.endpointOverride(URI.create(endpoint));
        }
        builder.region(region(endpoint));
        String accessKey = options.get(S3Options.ACCESS_KEY);
        AwsCredentialsProvider credentials = accessKey.isEmpty()
                ? DefaultCredentialsProvider.builder().build()
                : StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, options.get(S3Options.SECRET_KEY)));
        builder.credentialsProvider(credentials);
        return builder.build();
    }

    private Region region(String endpoint) {
        String configured = options.get(S3Options.REGION);
        if (!configured.isEmpty()) {
            return Region.of(configured);
        }
        try {
            return DefaultAwsRegionProviderChain.builder().build().getRegion();
        } catch (RuntimeException e) {
            if (!endpoint.isEmpty()) {
                return Region.US_EAST_1; // S3-compatible stores mostly ignore the region, but signing needs one
            }
            throw new IllegalStateException("no AWS region: set " + S3Options.REGION.key() + " (or AWS_REGION) for "
                    + location + " (" + e.getMessage() + ")", e);
        }
    }
}
