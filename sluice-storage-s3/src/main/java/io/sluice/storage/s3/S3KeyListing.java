package io.sluice.storage.s3;

import io.sluice.storage.StorageException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Lists and deletes the objects of one {@link S3BlobStore} by key: ListObjectsV2 following
 * continuation tokens ({@code s3.list-page-size} keys per page), and DeleteObjects in batches of
 * {@code s3.delete-batch-size} keys, or one DeleteObject per key from the first time the store
 * answers DeleteObjects with HTTP 501 Not Implemented; aborts multipart uploads left open (under a deleted prefix,
 * or of a key whose create the SDK retried). Counts every request in the store's API call counter (a listing of
 * uploads as one).
 *
 * <p>Threading: thread-safe; blocks on network I/O (never on a main thread: the store checks).
 */
final class S3KeyListing {
    private static final Logger LOG = LoggerFactory.getLogger(S3KeyListing.class);

    private final String role;
    private final S3Location location;
    private final S3ClientHolder clients;
    private final AtomicLong apiCalls;
    private final int listPageSize;
    private final int deleteBatchSize;
    private volatile boolean batchDeleteSupported = true;
    private volatile boolean uploadListingSupported = true;

    S3KeyListing(String role, S3Location location, S3ClientHolder clients, AtomicLong apiCalls, int listPageSize,
                 int deleteBatchSize) {
        this.role = role;
        this.location = location;
        this.clients = clients;
        this.apiCalls = apiCalls;
        this.listPageSize = listPageSize;
        this.deleteBatchSize = deleteBatchSize;
    }

    /** Every full key starting with {@code fullPrefix}, across all pages. */
    List<String> listKeys(String fullPrefix) {
        S3Client s3 = clients.client();
        List<String> keys = new ArrayList<>();
        String token = null;
        do {
            String continuation = token;
            apiCalls.incrementAndGet();
            ListObjectsV2Response page = s3.listObjectsV2(b -> b.bucket(location.bucket()).prefix(fullPrefix)
                    .maxKeys(listPageSize).continuationToken(continuation));
            for (S3Object o : page.contents()) {
                keys.add(o.key());
            }
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        return keys;
    }

    /** Deletes {@code keys} (of {@code deleteRecursively(prefix)}); a key already gone is no error. */
    void deleteKeys(String prefix, List<String> keys) {
        S3Client s3 = clients.client();
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
                response = s3.deleteObjects(b -> b.bucket(location.bucket()).delete(d -> d.objects(batch).quiet(true)));
            } catch (S3Exception e) {
                if (e.statusCode() != 501) {
                    throw e;
                }
                // The store does not implement DeleteObjects (or its checksum headers): delete key by key.
                batchDeleteSupported = false;
                LOG.warn("{} does not support batched deletes (DeleteObjects answered HTTP 501: {}); deleting one"
                        + " object per request from now on", location, S3Errors.errorMessage(e));
                deleteOneByOne(s3, batch);
                continue;
            }
            requireDeleted(prefix, batch.size(), response);
        }
    }

    private void requireDeleted(String prefix, int batchSize, DeleteObjectsResponse response) {
        List<S3Error> errors = response.errors().stream()
                .filter(e -> !"NoSuchKey".equals(e.code())).toList();
        if (!errors.isEmpty()) {
            S3Error first = errors.get(0);
            throw new StorageException(StorageException.message(role, location.toString(), "failed (" + errors.size()
                    + " of " + batchSize + " keys not deleted; first: " + first.key() + ": " + first.code() + " "
                    + first.message() + ")", "deleteRecursively", prefix));
        }
    }

    private void deleteOneByOne(S3Client s3, List<ObjectIdentifier> batch) {
        for (ObjectIdentifier id : batch) {
            apiCalls.incrementAndGet();
            s3.deleteObject(b -> b.bucket(location.bucket()).key(id.key()));
        }
    }

    /**
     * Aborts the multipart uploads open under {@code fullPrefix} that {@code which} selects: uploads nobody will
     * complete or abort any more (under a prefix being deleted: a create whose answer was lost on every attempt, an
     * abort that failed, a late upload of a discarded checkpoint; of one key: the upload of a create attempt whose
     * answer was lost before the SDK's retry). Best effort: a failure is logged, not thrown (a bucket lifecycle rule
     * catches what stays); a store that does not implement ListMultipartUploads (HTTP 501) is not asked again.
     *
     * @param what  the path or prefix the uploads belong to, for the log
     * @param why   why they are left over, for the log
     * @return false if listing or aborting failed (worth trying again later); true once every selected upload was
     *     aborted, or when the store cannot list uploads (nothing more can be done)
     */
    boolean abortUploads(String what, String fullPrefix, Predicate<MultipartUpload> which, String why) {
        if (!uploadListingSupported) {
            return true;
        }
        S3Client s3 = clients.client();
        int aborted = 0;
        boolean done = false;
        try {
            apiCalls.incrementAndGet();
            for (MultipartUpload u : s3.listMultipartUploadsPaginator(b -> b.bucket(location.bucket())
                    .prefix(fullPrefix)).uploads()) {
                if (which.test(u)) {
                    apiCalls.incrementAndGet();
                    s3.abortMultipartUpload(b -> b.bucket(location.bucket()).key(u.key()).uploadId(u.uploadId()));
                    aborted++;
                }
            }
            done = true;
        } catch (S3Exception e) {
            if (e.statusCode() == 501) {
                done = true;
                uploadListingSupported = false;
                LOG.warn("{} does not support listing multipart uploads (HTTP 501: {}); uploads left open are left to"
                        + " the bucket's lifecycle rules", location, S3Errors.errorMessage(e));
            } else {
                LOG.warn("{}: could not abort the multipart uploads of {} {} ({}); the bucket's lifecycle rules must"
                        + " clean them up", location, what, why, S3Errors.errorMessage(e));
            }
        } catch (RuntimeException e) {
            LOG.warn("{}: could not abort the multipart uploads of {} {} ({}); the bucket's lifecycle rules must clean"
                    + " them up", location, what, why, e.toString());
        }
        if (aborted > 0) {
            LOG.info("{}: aborted {} multipart uploads of {} {}", location, aborted, what, why);
        }
        return done;
    }

    /** Whether DeleteObjects is used; false once the store answered it with HTTP 501 Not Implemented. */
    boolean batchDeleteSupported() {
        return batchDeleteSupported;
    }
}
