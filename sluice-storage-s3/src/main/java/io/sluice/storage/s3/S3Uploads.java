package io.sluice.storage.s3;

import io.sluice.storage.BlobContent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Writes the objects of one {@link S3BlobStore}: one PUT, or a multipart upload for blobs above
 * {@code s3.multipart-threshold} in parts of {@code s3.part-size}, aborted when a part or the
 * completion fails (parts grow beyond {@code s3.part-size} if a blob would need more than
 * {@value #MAX_PARTS}). Either way readers see the whole object or none of it. Request bodies are streams
 * over the caller's {@link BlobContent} (an array or a local file), fresh per attempt, so retries resend
 * the same bytes without a copy and nothing is held in memory as a whole.
 * The completion of a multipart upload goes through its own client, whose timeouts are
 * {@code s3.complete-upload-timeout} ({@link S3Clients#buildForCompletions}): S3 may take minutes to assemble a large
 * object. A completion that finds its upload gone (an attempt that timed out or lost its connection after S3 had
 * carried it out, and the SDK's retry: 404 NoSuchUpload on S3, another error on S3-compatible stores) checks the
 * object: there with this upload's length and, where computable, its multipart ETag, the put succeeded.
 * A create of a multipart upload that took the SDK more than one attempt is followed by the abort of any other upload
 * of the key (an earlier attempt carried out whose answer was lost: CreateMultipartUpload is not idempotent).
 * A create that failed on every attempt (any of which S3 may have carried out) and an abort that failed leave
 * their key in doubt: after the next put that succeeds (S3 answers again), the uploads open under those keys
 * that no put is writing now are listed, one listing per parent prefix, and aborted; a key stays in doubt while its
 * listing fails. Counts every request in the store's API call counter (a listing of uploads as one).
 *
 * <p>Threading: thread-safe; blocks on network I/O (never on a main thread: the store checks).
 */
final class S3Uploads {
    private static final Logger LOG = LoggerFactory.getLogger(S3Uploads.class);
    /** The most parts S3 accepts in one multipart upload. */
    static final long MAX_PARTS = 10_000;
    /** The most keys kept in doubt; beyond, the bucket's lifecycle rules must clean up (a long outage's creates). */
    static final int MAX_KEYS_IN_DOUBT = 10_000;

    private final S3Location location;
    private final S3ClientHolder clients;
    private final S3ClientHolder completionClients;
    private final S3KeyListing keys;
    private final AtomicLong apiCalls;
    private final long multipartThreshold;
    private final long partSize;
    /** Keys an upload of which may be open that no put will complete or abort (a failed create or abort). */
    private final Set<String> keysInDoubt = ConcurrentHashMap.newKeySet();
    /** Keys with multipart puts running now, and how many: a sweep leaves their uploads alone. */
    private final ConcurrentHashMap<String, Integer> keysBeingPut = new ConcurrentHashMap<>();
    /** Whether a sweep of {@link #keysInDoubt} runs (one at a time: two would abort the same uploads). */
    private final AtomicBoolean sweeping = new AtomicBoolean();

    S3Uploads(S3Location location, S3ClientHolder clients, S3ClientHolder completionClients, S3KeyListing keys,
              AtomicLong apiCalls, long multipartThreshold, long partSize) {
        this.location = location;
        this.clients = clients;
        this.completionClients = completionClients;
        this.keys = keys;
        this.apiCalls = apiCalls;
        this.multipartThreshold = multipartThreshold;
        this.partSize = partSize;
    }

    /**
     * Writes {@code content} as the object {@code key} (blob {@code path}), in parts if it is large. The
     * content is streamed: each request body is a fresh {@link BlobContent#open} of its range (per attempt, so
     * retries resend the same bytes), never the whole blob in memory.
     */
    void put(String path, String key, BlobContent content) {
        long length = content.length();
        if (length > multipartThreshold) {
            keysBeingPut.merge(key, 1, Integer::sum);
            try {
                putMultipart(path, key, content, length);
            } finally {
                keysBeingPut.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
            }
        } else {
            apiCalls.incrementAndGet();
            clients.client().putObject(b -> b.bucket(location.bucket()).key(key).contentLength(length),
                    body(content, 0, length));
        }
        abortUploadsOfKeysInDoubt();
    }

    /** Keys in doubt now (tests). */
    Set<String> keysInDoubt() {
        return Set.copyOf(keysInDoubt);
    }

    private void putInDoubt(String key) {
        if (keysInDoubt.size() < MAX_KEYS_IN_DOUBT) {
            keysInDoubt.add(key);
        } else {
            LOG.warn("{}: {} keys already wait for their open multipart uploads to be looked for; an upload of {} may"
                    + " stay open for the bucket's lifecycle rules", location, MAX_KEYS_IN_DOUBT, key);
        }
    }

    /**
     * Lists the uploads open under the keys in doubt that no put writes now, one listing per parent prefix, and
     * aborts them; a key whose listing failed stays in doubt. Skipped while another thread sweeps.
     */
    private void abortUploadsOfKeysInDoubt() {
        if (keysInDoubt.isEmpty() || !sweeping.compareAndSet(false, true)) {
            return;
        }
        try {
            Map<String, Set<String>> byParent = new TreeMap<>();
            for (String key : keysInDoubt) {
                if (!keysBeingPut.containsKey(key)) {
                    byParent.computeIfAbsent(key.substring(0, key.lastIndexOf('/') + 1), p -> new HashSet<>()).add(key);
                }
            }
            for (Map.Entry<String, Set<String>> parent : byParent.entrySet()) {
                Set<String> swept = parent.getValue();
                // a put of a swept key that began since keeps the key in doubt: its uploads were not looked at
                Set<String> begunSince = new HashSet<>();
                boolean listed = keys.abortUploads(parent.getKey(), parent.getKey(), u -> {
                    if (!swept.contains(u.key())) {
                        return false;
                    }
                    if (keysBeingPut.containsKey(u.key())) {
                        begunSince.add(u.key());
                        return false;
                    }
                    return true;
                }, "left open by a put whose create or abort failed");
                if (listed) {
                    swept.removeAll(begunSince);
                    keysInDoubt.removeAll(swept);
                }
            }
        } finally {
            sweeping.set(false);
        }
    }

    private void putMultipart(String path, String key, BlobContent content, long length) {
        S3Client s3 = clients.client();
        String bucket = location.bucket();
        // S3 allows at most MAX_PARTS parts: a blob too large for s3.part-size gets larger parts.
        long size0 = Math.max(partSize, (length + MAX_PARTS - 1) / MAX_PARTS);
        apiCalls.incrementAndGet();
        AtomicInteger attempts = new AtomicInteger();
        String uploadId;
        try {
            uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key(key)
                    .overrideConfiguration(o -> o.putExecutionAttribute(AttemptCounter.ATTEMPTS, attempts))).uploadId();
        } catch (RuntimeException e) {
            if (attempts.get() > 0) {
                putInDoubt(key); // S3 may have carried out an attempt whose answer was lost
            }
            throw e;
        }
        if (attempts.get() > 1) {
            // An earlier attempt may have been carried out and its answer lost: its upload of this key is aborted.
            // Listed under the key's parent and matched exactly: some S3-compatible stores list multipart uploads by
            // a prefix only up to its last '/'.
            if (!keys.abortUploads(path, key.substring(0, key.lastIndexOf('/') + 1),
                    u -> u.key().equals(key) && !u.uploadId().equals(uploadId),
                    "created by an attempt of a create the SDK retried, whose answer was lost")) {
                putInDoubt(key);
            }
        }
        try {
            List<CompletedPart> parts = new ArrayList<>();
            int partNumber = 1;
            for (long offset = 0; offset < length; offset += size0, partNumber++) {
                long size = Math.min(size0, length - offset);
                int n = partNumber;
                apiCalls.incrementAndGet();
                String eTag = s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(n)
                        .contentLength(size), body(content, offset, size)).eTag();
                parts.add(CompletedPart.builder().partNumber(n).eTag(eTag).build());
            }
            complete(path, key, uploadId, parts, length);
        } catch (RuntimeException e) {
            // An upload interrupted by its task's cancellation (a failover) is aborted all the same: the SDK refuses
            // to start a call on an interrupted thread, so the flag is cleared for the abort and then set again.
            boolean interrupted = Thread.interrupted();
            try {
                apiCalls.incrementAndGet();
                s3.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId));
            } catch (RuntimeException abortFailure) {
                LOG.warn("Could not abort multipart upload {} of {} in {}: {}; it is looked for again after the next"
                        + " put that succeeds", uploadId, path, location, abortFailure.toString());
                putInDoubt(key);
                e.addSuppressed(abortFailure);
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            throw e;
        }
    }

    private void complete(String path, String key, String uploadId, List<CompletedPart> parts, long length) {
        String bucket = location.bucket();
        try {
            apiCalls.incrementAndGet();
            completionClients.client().completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId)
                    .multipartUpload(m -> m.parts(parts)));
        } catch (S3Exception e) {
            handleFailedCompletion(path, key, uploadId, parts, length, e);
        } catch (RuntimeException e) {
            throw LongCallTimedOutException.wrapIfTimeout("completing the multipart upload", e);
        }
    }

    /**
     * A completion that failed with {@code e}: a retry of a completion S3 had carried out finds the upload gone (S3
     * answers 404 NoSuchUpload, S3-compatible stores other errors; S3Proxy: 400 InvalidPart, the parts being gone),
     * and the object tells whether it was this upload. Any other failure is thrown.
     */
    private void handleFailedCompletion(String path, String key, String uploadId, List<CompletedPart> parts, long length,
                                        S3Exception e) {
        boolean retriedOrGone = e.statusCode() == 404 || e.numAttempts() > 1;
        if (!retriedOrGone || e instanceof NoSuchBucketException || !completedBefore(key, parts, length)) {
            throw e;
        }
        LOG.info("Multipart upload {} of {} in {} was completed by an earlier attempt (its retry failed with HTTP"
                + " {}, and the object is there with this upload's {} bytes)", uploadId, path, location,
                e.statusCode(), length);
    }

    /** Whether the object {@code key} is what completing {@code parts} made: its length and, if computable, ETag. */
    private boolean completedBefore(String key, List<CompletedPart> parts, long length) {
        HeadObjectResponse head;
        try {
            apiCalls.incrementAndGet();
            head = clients.client().headObject(b -> b.bucket(location.bucket()).key(key));
        } catch (NoSuchKeyException e) {
            return false;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return false;
            }
            throw e;
        }
        String expected = MultipartETag.of(parts.stream().map(CompletedPart::eTag).toList());
        String actual = head.eTag();
        boolean eTagMatches = expected == null || !MultipartETag.isMultipart(actual)
                || expected.equals(MultipartETag.strip(actual));
        return head.contentLength() != null && head.contentLength() == length && eTagMatches;
    }

    private static RequestBody body(BlobContent content, long offset, long length) {
        // A fresh stream per attempt, so that retries resend the same bytes; no copy of the data.
        return RequestBody.fromContentProvider(() -> {
            try {
                return content.open(offset, length);
            } catch (IOException e) {
                throw new UncheckedIOException("Could not read the content to upload (" + length + " bytes at offset "
                        + offset + " of " + content + "): " + e.getMessage(), e);
            }
        }, length, "application/octet-stream");
    }
}
