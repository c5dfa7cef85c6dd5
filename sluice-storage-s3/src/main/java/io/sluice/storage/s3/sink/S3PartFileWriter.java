package io.sluice.storage.s3.sink;

import io.sluice.api.sink.SinkUnavailableException;
import io.sluice.api.sink.SinkWriter;
import io.sluice.util.Clock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one subtask's lines into part files on S3, each a multipart upload of the object
 * {@code <prefix>part-<subtask>-<writer>-<n>}: lines collect in a buffer of {@code s3.part-size} bytes,
 * which is uploaded as the next part whenever it fills (the upload itself is created with the first
 * part). It rolls to a new part file once the current one holds {@code maxPartFileBytes} or is older than
 * {@code rolloverInterval}, and at every barrier, where the rest of the buffer goes up as the last part
 * (the only one that may be below S3's 5 MiB minimum) and the file becomes an {@link S3PartFile}
 * committable. Nothing is visible until the committer completes the upload.
 *
 * <p>Once a checkpoint of this attempt completes, it aborts the open uploads under the prefix that belong
 * to its subtask (also those of subtasks of a higher parallelism before, {@code s % parallelism}), that it
 * did not begin itself and that no restored committable names: what earlier attempts began after the
 * restored checkpoint. Not before, since until then a checkpoint of the earlier attempt that was being
 * finalized could still complete and name them; a failure to list or abort is logged and tried again after
 * the next completed checkpoint (leftovers are invisible: they cost storage, never correctness, so they
 * never fail the job). {@link #close} aborts the uploads no checkpoint names. A create-upload that failed may
 * still have created an upload on S3 (its answer lost): once the retry at a later barrier creates the file's
 * upload, the others of that key are aborted. So are they after a create-upload that succeeded only on a retry
 * of the SDK's own (CreateMultipartUpload is not idempotent: each attempt that S3 carried out created an upload).
 *
 * <p>Threading: the subtask's task thread only; every S3 call blocks it (bounded by the client's timeouts).
 */
final class S3PartFileWriter<T> implements SinkWriter<T, S3PartFile> {
    private static final Logger LOG = LoggerFactory.getLogger(S3PartFileWriter.class);
    static final String PART = "part-";

    private final S3ExactlyOnceFileSink<T> sink;
    private final S3SinkClient client;
    private final Clock clock;
    private final int subtask;
    private final int parallelism;
    private final String token = UUID.randomUUID().toString().substring(0, 8);
    private final Set<String> restoredUploads = new HashSet<>();
    /**
     * Part files whose create-upload failed (a connection cut while the request was under way, say), or took
     * more than one attempt: S3 may have created an upload whose answer never came. Key -> the upload this
     * writer created for it once one succeeded ({@code null} before); the others of that key are orphans,
     * aborted by {@link #abortOrphans}.
     */
    private final Map<String, String> inDoubtCreates = new HashMap<>();
    private final List<S3PartFile> closedSinceBarrier = new ArrayList<>();
    private final byte[] buffer;
    private int counter;
    private boolean cleaned;

    // the part file in progress: key != null while one is open
    private String key;
    private String uploadId;
    private final List<S3PartFile.Part> parts = new ArrayList<>();
    private int buffered;
    private long fileBytes;
    private long openedAt;

    S3PartFileWriter(S3ExactlyOnceFileSink<T> sink, S3SinkClient client, Clock clock, int subtask, int parallelism,
                     List<S3PartFile> restored, int partSize) {
        this.sink = sink;
        this.client = client;
        this.clock = clock;
        this.subtask = subtask;
        this.parallelism = parallelism;
        this.buffer = new byte[partSize];
        for (S3PartFile p : restored) {
            restoredUploads.add(p.uploadId());
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("S3 exactly-once file sink, subtask {}: writer {} restored {}", subtask, token,
                    restored.stream().map(S3PartFile::key).toList());
        }
    }

    @Override
    public void write(T value) throws IOException {
        if (key != null && (fileBytes >= sink.maxPartFileBytes()
                || clock.relativeTimeMillis() - openedAt >= sink.rolloverInterval().toMillis())) {
            closeCurrent();
        }
        if (key == null) {
            key = sink.keyPrefix() + PART + subtask + "-" + token + "-" + counter++;
            openedAt = clock.relativeTimeMillis();
            fileBytes = 0;
        }
        byte[] line = sink.encode(value).concat("\n").getBytes(StandardCharsets.UTF_8);
        int offset = 0;
        while (offset < line.length) {
            int n = Math.min(line.length - offset, buffer.length - buffered);
            System.arraycopy(line, offset, buffer, buffered, n);
            buffered += n;
            offset += n;
            if (buffered == buffer.length) {
                uploadBuffer();
            }
        }
        fileBytes += line.length;
    }

    @Override
    public List<S3PartFile> preCommit(long checkpointId) throws IOException {
        try {
            closeCurrent();
        } catch (IOException e) {
            // closeCurrent keeps the buffer, the upload id and the parts until the last part is up: the next
            // barrier uploads it again (a part number uploaded twice replaces the first), so only this
            // checkpoint is declined, and the task keeps running.
            throw new SinkUnavailableException("S3 exactly-once file sink, subtask " + subtask + ": could not upload"
                    + " the last part of s3://" + client.bucket() + "/" + key + " at checkpoint " + checkpointId
                    + " (" + e.getMessage() + "); the checkpoint is declined and the records are kept for the next"
                    + " one", e);
        }
        List<S3PartFile> done = List.copyOf(closedSinceBarrier);
        closedSinceBarrier.clear();
        if (LOG.isDebugEnabled()) {
            LOG.debug("S3 exactly-once file sink, subtask {}: pre-committed {} at checkpoint {}", subtask,
                    done.stream().map(S3PartFile::key).toList(), checkpointId);
        }
        return done;
    }

    /**
     * The first time: aborts what earlier attempts left. A failure to list or abort is logged and tried again
     * after the next completed checkpoint: leftover uploads are invisible, so they never fail the job.
     */
    @Override
    public void checkpointCompleted(long checkpointId) {
        abortOrphans();
        if (cleaned) {
            return;
        }
        try {
            abortLeftovers();
            cleaned = true;
        } catch (IOException e) {
            LOG.warn("S3 exactly-once file sink, subtask {}: could not abort the uploads earlier attempts left ({});"
                    + " trying again after the next checkpoint", subtask, e.getMessage());
        }
    }

    private void abortLeftovers() throws IOException {
        String listed = sink.keyPrefix() + PART;
        int aborted = 0;
        for (S3SinkClient.Upload u : client.listUploads(listed)) {
            String name = u.key().substring(sink.keyPrefix().length());
            if (ownedBySubtask(name) && !name.startsWith(PART + subtask + "-" + token + "-")
                    && !restoredUploads.contains(u.uploadId())) {
                client.abort(u);
                aborted++;
                LOG.info("S3 exactly-once file sink: aborted the upload {} of s3://{}/{}, begun by an earlier attempt"
                        + " after the checkpoint this subtask restored from; its records are written again",
                        u.uploadId(), client.bucket(), u.key());
            }
        }
        LOG.debug("S3 exactly-once file sink, subtask {}: {} uploads of earlier attempts aborted", subtask, aborted);
    }

    /**
     * Aborts the uploads of part files whose create-upload failed, other than the one this writer created for
     * each since: S3 may have created one for an attempt whose answer was lost, and no committable will ever
     * name it. A failure to list or abort is logged and tried again after the next completed checkpoint.
     */
    private void abortOrphans() {
        abortOrphans(false);
    }

    /**
     * As {@link #abortOrphans()}; {@code closing}: the writer closes, so a key no create of which succeeded
     * will never be created again and every upload of it is an orphan.
     */
    private void abortOrphans(boolean closing) {
        if (inDoubtCreates.isEmpty()
                || (!closing && inDoubtCreates.values().stream().allMatch(java.util.Objects::isNull))) {
            return; // none created yet: the orphans are looked for once one is
        }
        try {
            // listed under the sink's prefix, as abortLeftovers does (some S3 implementations list multipart
            // uploads by a prefix only up to the last '/'), then matched exactly
            for (S3SinkClient.Upload u : client.listUploads(sink.keyPrefix() + PART)) {
                if (!inDoubtCreates.containsKey(u.key())) {
                    continue;
                }
                String mine = inDoubtCreates.get(u.key());
                if (mine == null ? closing : !u.uploadId().equals(mine)) {
                    client.abort(u);
                    LOG.info("S3 exactly-once file sink, subtask {}: aborted the upload {} of s3://{}/{}, created by a"
                            + " create-upload whose answer was lost", subtask, u.uploadId(), client.bucket(), u.key());
                }
            }
            if (closing) {
                inDoubtCreates.clear();
            } else {
                inDoubtCreates.values().removeIf(java.util.Objects::nonNull);
            }
        } catch (IOException failure) {
            LOG.warn("S3 exactly-once file sink, subtask {}: could not look for uploads that failed create-uploads may"
                    + " have left ({}); {}", subtask, failure.getMessage(), closing
                    ? "a later attempt's clean-up aborts them" : "trying again after the next checkpoint");
        }
    }

    /** A part file {@code part-<s>-...} belongs to this subtask when {@code s % parallelism == subtask}. */
    private boolean ownedBySubtask(String name) {
        int end = name.indexOf('-', PART.length());
        if (!name.startsWith(PART) || end < 0 || name.indexOf('/') >= 0) {
            return false;
        }
        try {
            return Integer.parseInt(name.substring(PART.length(), end)) % parallelism == subtask;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private void uploadBuffer() throws IOException {
        if (uploadId == null) {
            S3SinkClient.Created created;
            try {
                created = client.createUpload(key);
            } catch (IOException e) {
                inDoubtCreates.putIfAbsent(key, null);
                throw e;
            }
            uploadId = created.uploadId();
            // A create the SDK retried may have had an earlier attempt carried out whose answer was lost: the
            // same doubt as a create that failed.
            if (created.attempts() > 1 || inDoubtCreates.containsKey(key)) {
                inDoubtCreates.put(key, uploadId);
                abortOrphans();
            }
        }
        int number = parts.size() + 1;
        parts.add(new S3PartFile.Part(number, client.uploadPart(key, uploadId, number, buffer, buffered)));
        buffered = 0;
    }

    private void closeCurrent() throws IOException {
        if (key == null) {
            return;
        }
        if (buffered > 0 || parts.isEmpty()) {
            uploadBuffer();
        }
        closedSinceBarrier.add(new S3PartFile(client.bucket(), key, uploadId, parts, fileBytes));
        key = null;
        uploadId = null;
        parts.clear();
    }

    /**
     * Aborts the uploads no checkpoint names (the one in progress, and those rolled since the last barrier);
     * best effort, each bounded by the client's timeouts.
     */
    @Override
    public void close() {
        List<S3SinkClient.Upload> unnamed = new ArrayList<>();
        for (S3PartFile f : closedSinceBarrier) {
            unnamed.add(new S3SinkClient.Upload(f.key(), f.uploadId()));
        }
        if (uploadId != null) {
            unnamed.add(new S3SinkClient.Upload(key, uploadId));
        }
        closedSinceBarrier.clear();
        key = null;
        uploadId = null;
        try {
            for (S3SinkClient.Upload u : unnamed) {
                client.abort(u);
            }
            abortOrphans(true);
        } catch (IOException e) {
            LOG.warn("S3 exactly-once file sink: could not abort the uploads in progress ({}); the next attempt aborts"
                    + " them once one of its checkpoints completes", e.getMessage());
        } finally {
            client.close();
        }
    }
}
