package io.sluice.storage.s3;

import io.sluice.config.Configuration;
import io.sluice.rpc.MainThreads;
import io.sluice.storage.BlobContent;
import io.sluice.storage.BlobNotFoundException;
import io.sluice.storage.BlobStore;
import io.sluice.storage.ObjectAddress;
import io.sluice.storage.StorageException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

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
 *   <li>{@link #put(String, BlobContent)} streams the same way, each PUT or part body a fresh stream over
 *       its range of the content, so a blob larger than memory (or 2 GB) is never held whole.</li>
 *   <li>{@link #get}, {@link #openRead} (the GetObject response as a stream), {@link #exists}: a missing
 *       object (404) is {@link BlobNotFoundException}, or {@code false}.</li>
 *   <li>{@link #list}: ListObjectsV2, following continuation tokens ({@code s3.list-page-size} keys per page).</li>
 *   <li>{@link #deleteRecursively}: lists and deletes with DeleteObjects, at most
 *       {@code s3.delete-batch-size} (≤ 1000) keys per request, then aborts the multipart uploads left open
 *       under the prefix.</li>
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
 * <p><b>Parts.</b> {@link S3Location} (bucket, prefix, object keys), {@link S3ClientHolder} (the lazily
 * built SDK client with its timeouts and retries), {@link S3Uploads} (PUT and multipart upload),
 * {@link S3KeyListing} (listing and batched deletes) and {@link S3Errors} (failures in words); this
 * class is the {@link BlobStore} facade that checks the calling thread and translates failures.
 *
 * <p>Threading: thread-safe. Every method except {@link #describe()} blocks on network I/O.
 * {@link #close()} releases the client's connection pool.
 */
public final class S3BlobStore implements BlobStore, AutoCloseable {
    /** The largest object one CopyObject copies (S3's limit); larger ones are streamed by the caller. */
    static final long MAX_SINGLE_COPY_BYTES = 5L * 1024 * 1024 * 1024;
    private final S3Location location;
    private final String role;
    private final AtomicLong apiCalls = new AtomicLong();
    private final S3ClientHolder clients;
    /**
     * The client of CompleteMultipartUpload and CopyObject, with s3.complete-upload-timeout
     * ({@link S3Clients#buildForCompletions}).
     */
    private final S3ClientHolder completionClients;
    /** The service and identity this store reaches, for {@link ObjectAddress}: endpoint, region, access key. */
    private final String service;
    private final S3Uploads uploads;
    private final S3KeyListing keys;
    private final S3Errors errors;

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
        this.role = Objects.requireNonNull(role, "role");
        this.location = new S3Location(location);
        Configuration options = S3Options.effective(configuration);
        this.clients = new S3ClientHolder(this.location, options);
        this.completionClients = S3ClientHolder.forCompletions(this.location, options);
        this.keys = new S3KeyListing(role, this.location, clients, apiCalls, options.get(S3Options.LIST_PAGE_SIZE),
                options.get(S3Options.DELETE_BATCH_SIZE));
        this.uploads = new S3Uploads(this.location, clients, completionClients, keys, apiCalls,
                options.get(S3Options.MULTIPART_THRESHOLD), options.get(S3Options.PART_SIZE));
        this.errors = new S3Errors(role, this.location, options);
        String accessKey = options.get(S3Options.ACCESS_KEY);
        this.service = "s3 " + (options.get(S3Options.ENDPOINT).isEmpty() ? "aws" : options.get(S3Options.ENDPOINT))
                + " region " + options.get(S3Options.REGION) + " "
                + (accessKey.isEmpty() ? "default credentials" : "key #" + Integer.toHexString(accessKey.hashCode()));
    }

    public String bucket() {
        return location.bucket();
    }

    /** The key prefix of every blob: {@code ""} or {@code "prefix/"}. */
    public String keyPrefix() {
        return location.keyPrefix();
    }

    /** S3 API requests issued by this store (each counted once, however many HTTP attempts it took). */
    public long apiCalls() {
        return apiCalls.get();
    }

    @Override
    public String describe() {
        return location.toString();
    }

    @Override
    public String role() {
        return role;
    }

    @Override
    public void put(String path, byte[] data) {
        put(path, BlobContent.of(data));
    }

    /**
     * Streams {@code content} up: one PUT, or a multipart upload above {@code s3.multipart-threshold} whose
     * parts are ranges of the content; atomic as {@link #put(String, byte[])}. A content that cannot be read
     * fails the put (a multipart upload is aborted) with a {@link StorageException}.
     */
    @Override
    public void put(String path, BlobContent content) {
        String key = location.key(path);
        call("put", path, () -> {
            uploads.put(path, key, content);
            return null;
        });
    }

    @Override
    public byte[] get(String path) {
        String key = location.key(path);
        return call("get", path, () -> {
            try {
                apiCalls.incrementAndGet();
                return clients.client().getObjectAsBytes(b -> b.bucket(location.bucket()).key(key)).asByteArray();
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

    /**
     * The object as the response stream of one GetObject; a missing object (404) is
     * {@link BlobNotFoundException}, as for {@link #get}. Once open, failures while reading (a dropped
     * connection, a timeout) are {@link IOException}s from {@code read} naming the location and path, also
     * where the SDK throws unchecked. Closing the stream before its end aborts the connection rather than
     * drain the rest of the object.
     */
    @Override
    public InputStream openRead(String path) {
        String key = location.key(path);
        return call("get", path, () -> {
            try {
                apiCalls.incrementAndGet();
                return new ObjectStream(clients.client().getObject(b -> b.bucket(location.bucket()).key(key)), path);
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

    /** A GetObject response stream whose read failures are IOExceptions in words. Threading: one thread. */
    private final class ObjectStream extends FilterInputStream {
        private final ResponseInputStream<GetObjectResponse> response;
        private final String path;
        private boolean ended;

        ObjectStream(ResponseInputStream<GetObjectResponse> response, String path) {
            super(response);
            this.response = response;
            this.path = path;
        }

        @Override
        public int read() throws IOException {
            try {
                int b = super.read();
                ended |= b < 0;
                return b;
            } catch (SdkException | UncheckedIOException e) {
                throw readFailure(e);
            } catch (IOException e) {
                throw readFailure(new UncheckedIOException(e));
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                int n = super.read(b, off, len);
                ended |= n < 0;
                return n;
            } catch (SdkException | UncheckedIOException e) {
                throw readFailure(e);
            } catch (IOException e) {
                throw readFailure(new UncheckedIOException(e));
            }
        }

        @Override
        public long skip(long n) throws IOException {
            try {
                return super.skip(n);
            } catch (SdkException | UncheckedIOException e) {
                throw readFailure(e);
            } catch (IOException e) {
                throw readFailure(new UncheckedIOException(e));
            }
        }

        /** {@code e} in the store's words ("... unreachable (...) during get p"), with the original as the cause. */
        private IOException readFailure(RuntimeException e) {
            Throwable cause = e instanceof UncheckedIOException u ? u.getCause() : e;
            return new IOException(errors.translate("get", path, e).getMessage() + " (reading the object)", cause);
        }

        @Override
        public void close() throws IOException {
            if (!ended) {
                response.abort(); // do not download the rest of a large object only to discard it
            }
            super.close();
        }
    }

    @Override
    public Optional<ObjectAddress> objectAddress(String path) {
        return Optional.of(new ObjectAddress(service, location.bucket(), location.key(path)));
    }

    /**
     * CopyObject on the server when {@code source} is an object of the same service (endpoint, region and access key
     * as this store's), through the client of long calls ({@code s3.complete-upload-timeout}: S3 answers a copy
     * when it is done); -1 for another service's object or one above S3's 5 GiB limit of a single copy.
     */
    @Override
    public long copyObject(ObjectAddress source, String path) {
        if (!source.service().equals(service)) {
            return -1;
        }
        String key = location.key(path);
        return call("copy", path, () -> {
            long size;
            try {
                apiCalls.incrementAndGet();
                size = clients.client().headObject(b -> b.bucket(source.bucket()).key(source.key())).contentLength();
            } catch (NoSuchKeyException e) {
                throw sourceNotFound(source, path, e);
            } catch (S3Exception e) {
                if (e.statusCode() == 404 && !(e instanceof NoSuchBucketException)) {
                    throw sourceNotFound(source, path, e);
                }
                throw e;
            }
            if (size > MAX_SINGLE_COPY_BYTES) {
                return -1L;
            }
            apiCalls.incrementAndGet();
            try {
                completionClients.client().copyObject(b -> b.sourceBucket(source.bucket()).sourceKey(source.key())
                        .destinationBucket(location.bucket()).destinationKey(key));
            } catch (RuntimeException e) {
                throw LongCallTimedOutException.wrapIfTimeout("copying the object on the server", e);
            }
            return size;
        });
    }

    private BlobNotFoundException sourceNotFound(ObjectAddress source, String path, Throwable cause) {
        return new BlobNotFoundException(StorageException.message(role, location.toString(), "has no source object "
                + source.bucket() + "/" + source.key() + " to copy", "copy", path)
                + " (it was never written completely, or it was deleted)", cause);
    }

    private BlobNotFoundException notFound(String path, Throwable cause) {
        return new BlobNotFoundException(StorageException.message(role, location.toString(), "has no blob", "get", path)
                + " (it was never written completely, or it was deleted)", cause);
    }

    @Override
    public boolean exists(String path) {
        String key = location.key(path);
        return call("exists", path, () -> {
            try {
                apiCalls.incrementAndGet();
                clients.client().headObject(b -> b.bucket(location.bucket()).key(key));
                return true;
            } catch (NoSuchKeyException e) {
                return false;
            } catch (S3Exception e) {
                if (e.statusCode() == 404 && !(e instanceof NoSuchBucketException)
                        && !"NoSuchBucket".equals(S3Errors.errorCode(e))) {
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
        String keyPrefix = location.keyPrefix();
        return call("list", prefix, () -> {
            List<String> out = new ArrayList<>();
            for (String key : keys.listKeys(keyPrefix + prefix)) {
                out.add(key.substring(keyPrefix.length()));
            }
            out.sort(null);
            return out;
        });
    }

    @Override
    public void delete(String path) {
        String key = location.key(path);
        call("delete", path, () -> {
            apiCalls.incrementAndGet();
            clients.client().deleteObject(b -> b.bucket(location.bucket()).key(key)); // S3 deletes are idempotent
            return null;
        });
    }

    @Override
    public void deleteRecursively(String prefix) {
        String top = prefix == null || prefix.isEmpty() ? null : location.key(prefix); // null: the whole store
        String under = top == null ? location.keyPrefix() : top + "/";
        call("deleteRecursively", prefix, () -> {
            // A writer may add a blob while we delete (a late upload into an aborted checkpoint): list again
            // a few times rather than leave objects behind.
            for (int pass = 0; pass < 3; pass++) {
                List<String> found = keys.listKeys(under);
                if (top != null && pass == 0) {
                    found.add(top);
                }
                if (found.isEmpty()) {
                    break;
                }
                keys.deleteKeys(prefix, found);
            }
            // Multipart uploads under it that nobody completes or aborts any more (their create's answer lost, their
            // abort failed) are no objects: invisible, but S3 keeps and bills their parts.
            keys.abortUploads(prefix, under, upload -> true, "left open under a deleted prefix");
            return null;
        });
    }

    /**
     * Aborts the open multipart uploads of keys under {@code prefix} whose paths {@code which} accepts: a writer that
     * died mid-upload leaves one, which is no object, but S3 keeps and bills its parts. A store that cannot list
     * multipart uploads (HTTP 501) discards nothing (the bucket's lifecycle rules must).
     *
     * @throws StorageException if the uploads could not be listed or aborted
     */
    @Override
    public int discardUnfinishedWrites(String prefix, java.util.function.Predicate<String> which) {
        if (prefix == null || prefix.startsWith("/") || prefix.contains("\\")) {
            throw new IllegalArgumentException("Blob path prefix must be relative and '/'-separated, not '" + prefix
                    + "' (store " + location + ")");
        }
        String keyPrefix = location.keyPrefix();
        return call("discardUnfinishedWrites", prefix, () -> {
            int[] aborted = {0};
            boolean done = keys.abortUploads(prefix, keyPrefix + prefix, upload -> {
                boolean selected = upload.key().startsWith(keyPrefix)
                        && which.test(upload.key().substring(keyPrefix.length()));
                if (selected) {
                    aborted[0]++;
                }
                return selected;
            }, "left unfinished by a writer that died");
            if (!done) {
                throw new StorageException(StorageException.message(role(), location.toString(), "failed (the open"
                        + " multipart uploads could not be listed or aborted; see the warning before)",
                        "discardUnfinishedWrites", prefix));
            }
            return aborted[0];
        });
    }

    /** Whether DeleteObjects is used; false once the store answered it with HTTP 501 Not Implemented. */
    public boolean batchDeleteSupported() {
        return keys.batchDeleteSupported();
    }

    @Override
    public void close() {
        completionClients.close();
        clients.close();
    }

    @Override
    public String toString() {
        return "S3BlobStore[" + location + "]";
    }

    private <T> T call(String op, String path, Supplier<T> action) {
        MainThreads.checkNotMainThread("storage " + op + " " + path + " on " + location);
        try {
            return action.get();
        } catch (StorageException e) {
            throw e;
        } catch (SdkException | LongCallTimedOutException | IllegalStateException | UncheckedIOException e) {
            throw errors.translate(op, path, e);
        }
    }
}
