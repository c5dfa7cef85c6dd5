package io.sluice.checkpoint;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.graph.JobId;
import io.sluice.storage.BlobStore;
import io.sluice.storage.StorageException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where checkpoints live in a {@link BlobStore}, and how they are written, read and discarded.
 *
 * <p>Layout:
 * <pre>
 *   &lt;jobId&gt;/chk-&lt;checkpointId&gt;/&lt;vertexId&gt;-&lt;subtask&gt;.state   one per subtask with keyed state, checksummed (StateFileFormat)
 *                                                               above the inline-state threshold
 *                                                               (smaller state is inline in the metadata)
 *   &lt;jobId&gt;/chk-&lt;checkpointId&gt;/_metadata                      written last
 *   &lt;jobId&gt;/shared/ck&lt;checkpointId&gt;-...                       files later checkpoints may share, named by the
 *                                                               checkpoint they were first uploaded for
 * </pre>
 * A checkpoint is complete exactly when its {@code _metadata} blob exists: state files are
 * written first, the metadata last and atomically ({@link BlobStore#put}), so a crash in between
 * leaves no completed checkpoint, only a directory that {@link #discard} removes.
 *
 * <p>Counters ({@code sluice.checkpoint.storage.requests}, tag {@code kind}) and the getters
 * {@link #metadataReads()}, {@link #metadataWrites()}, {@link #stateReads()}, {@link #stateWrites()}
 * and {@link #discards()} count requests issued, successful or not. The metadata-read count shows,
 * for example, that a task failover restored from memory without reading metadata.
 *
 * <p>Threading: thread-safe. <b>Every method except {@link #location()} and
 * {@link #metadataPath} blocks on storage I/O and must run on an I/O executor, never on a
 * component main thread.</b>
 */
public final class CheckpointStorage {
    public static final String METADATA_FILE = "_metadata";
    public static final String REQUESTS_METRIC = "sluice.checkpoint.storage.requests";

    private static final Pattern METADATA_KEY = Pattern.compile("chk-(\\d+)/" + METADATA_FILE);
    private static final Pattern METADATA_PATH = Pattern.compile("(?:^|/)chk-(\\d+)/" + METADATA_FILE + "$");

    /** Up to this many checkpoint ids, {@link #listSharedUploads} lists each id's prefix; above, all uploads once. */
    static final int SHARED_LISTINGS_PER_ID_UP_TO = 16;

    private final BlobStore store;
    private final CheckpointMetadataSerializer serializer = new CheckpointMetadataSerializer();
    private final Meter metadataReads;
    private final Meter metadataWrites;
    private final Meter stateReads;
    private final Meter stateWrites;
    private final Meter discards;

    /** Opens the storage of another location, for state files named by a full location ({@link #isLocation}). */
    private final java.util.function.Function<String, CheckpointStorage> otherLocations;
    private final StateFileStreams streams;

    public CheckpointStorage(BlobStore store, MeterRegistry registry) {
        this(store, registry, null);
    }

    /**
     * @param otherLocations opens the storage of another location (the registry's {@code forLocation}), for
     *                       the state files of a checkpoint restored from there; {@code null}: none
     */
    public CheckpointStorage(BlobStore store, MeterRegistry registry,
                             java.util.function.Function<String, CheckpointStorage> otherLocations) {
        this.store = store;
        this.otherLocations = otherLocations;
        this.metadataReads = new Meter(registry, "metadata_read");
        this.metadataWrites = new Meter(registry, "metadata_write");
        this.stateReads = new Meter(registry, "state_read");
        this.stateWrites = new Meter(registry, "state_write");
        this.discards = new Meter(registry, "discard");
        this.streams = new StateFileStreams(this, store);
    }

    /** State files as streams: written from local files, opened, downloaded and copied, never whole in memory. */
    public StateFileStreams streams() {
        return streams;
    }

    void countStateRead() {
        stateReads.increment();
    }

    void countStateWrite() {
        stateWrites.increment();
    }

    /** The storage location, for example {@code file:///var/sluice/checkpoints}. Does no I/O. */
    public String location() {
        return store.describe();
    }

    /** Path of the metadata blob of a checkpoint: {@code <jobId>/chk-<id>/_metadata}. Does no I/O. */
    public String metadataPath(JobId jobId, long checkpointId) {
        return checkpointDir(jobId, checkpointId) + "/" + METADATA_FILE;
    }

    /**
     * Writes one subtask's state file of a checkpoint, {@code data} inside a header with its
     * CRC32C ({@link StateFileFormat}), and returns its path.
     */
    public String writeTaskState(JobId jobId, long checkpointId, int vertexId, int subtask, byte[] data) {
        if (vertexId < 0 || subtask < 0) {
            throw new IllegalArgumentException("Vertex id and subtask index must be >= 0, got vertex " + vertexId
                    + ", subtask " + subtask);
        }
        String path = checkpointDir(jobId, checkpointId) + "/" + vertexId + "-" + subtask + ".state";
        byte[] file = StateFileFormat.encode(data);
        stateWrites.increment();
        store.put(path, file);
        return path;
    }

    /**
     * Writes one subtask's operator state of a checkpoint (too large to be inline in the metadata), in the
     * format of {@link #writeTaskState}, as {@code <vertex>-<subtask>.opstate}, and returns its path. Read it
     * with {@link #readTaskState}.
     */
    public String writeOperatorState(JobId jobId, long checkpointId, int vertexId, int subtask, byte[] data) {
        if (vertexId < 0 || subtask < 0) {
            throw new IllegalArgumentException("Vertex id and subtask index must be >= 0, got vertex " + vertexId
                    + ", subtask " + subtask);
        }
        String path = checkpointDir(jobId, checkpointId) + "/" + vertexId + "-" + subtask + ".opstate";
        byte[] file = StateFileFormat.encode(data);
        stateWrites.increment();
        store.put(path, file);
        return path;
    }

    /**
     * Reads a state file written by {@link #writeTaskState} (or by a build before state files had
     * a checksum) and returns the data, checked.
     *
     * @throws io.sluice.storage.BlobNotFoundException if there is no such file
     * @throws CorruptStateFileException               if it is not intact (naming the path and the problem)
     */
    public byte[] readTaskState(String path) {
        if (isLocation(path)) {
            // A state file of a checkpoint or savepoint restored from another location: read it there.
            int slash = path.lastIndexOf('/');
            return otherStorageOf(path).readTaskState(path.substring(slash + 1));
        }
        stateReads.increment();
        return StateFileFormat.decode(store.get(path), path);
    }

    /**
     * Uploads a file that later checkpoints of the task may share (a RocksDB table file), made for checkpoint
     * {@code checkpointId}, to {@code <jobId>/shared/ck<checkpointId>-<vertex>-<subtask>-<random>-<localName>}
     * ({@link SharedStateRegistry#uploadPrefix}), checksummed like a state file ({@link StateFileFormat}), and
     * returns its path. The random part makes every upload's name unique, so a file left by an upload a crash
     * interrupted is never mistaken for another checkpoint's; the checkpoint id lets the job master find such a
     * file once that checkpoint is known never to complete ({@link #listSharedUploads}).
     */
    public String writeSharedFile(JobId jobId, long checkpointId, int vertexId, int subtask, String localName,
                                  java.nio.file.Path file) {
        String path = SharedStateRegistry.uploadPrefix(jobId, checkpointId) + vertexId + "-" + subtask + "-"
                + UUID.randomUUID() + "-" + localName;
        streams.put(path, file);
        return path;
    }

    /**
     * The shared files uploaded for the checkpoints {@code firstId} to {@code lastId} (both included), found by
     * listing: one listing per id for at most {@value #SHARED_LISTINGS_PER_ID_UP_TO} ids, else one of every
     * upload named by a checkpoint id ({@code <jobId>/shared/ck}), filtered. Shared files of releases before the
     * checkpoint id was in their names are never among them.
     */
    public List<String> listSharedUploads(JobId jobId, long firstId, long lastId) {
        String prefix = SharedStateRegistry.sharedDirectory(jobId) + "/" + SharedStateRegistry.UPLOAD_PREFIX;
        return listByCheckpointId(firstId, lastId, id -> SharedStateRegistry.uploadPrefix(jobId, id), prefix,
                key -> SharedStateRegistry.uploadedFor(key, prefix));
    }

    /**
     * Discards what writers that died mid-write left of the shared files for the checkpoints {@code firstId} to
     * {@code lastId} (both included; {@link BlobStore#discardUnfinishedWrites}): per id for at most
     * {@value #SHARED_LISTINGS_PER_ID_UP_TO} ids, else once under every upload named by a checkpoint id, filtered.
     * Only for ids whose checkpoints will never complete.
     *
     * @return how many unfinished writes were discarded
     */
    public int discardUnfinishedSharedUploads(JobId jobId, long firstId, long lastId) {
        if (firstId > lastId) {
            return 0;
        }
        if (lastId - firstId < SHARED_LISTINGS_PER_ID_UP_TO) {
            int discarded = 0;
            for (long id = firstId; id <= lastId; id++) {
                discarded += store.discardUnfinishedWrites(SharedStateRegistry.uploadPrefix(jobId, id), key -> true);
            }
            return discarded;
        }
        String prefix = SharedStateRegistry.sharedDirectory(jobId) + "/" + SharedStateRegistry.UPLOAD_PREFIX;
        return store.discardUnfinishedWrites(prefix, key -> {
            long id = SharedStateRegistry.uploadedFor(key, prefix);
            return id >= firstId && id <= lastId;
        });
    }

    /**
     * The ids from {@code firstId} to {@code lastId} (both included) that have files in their checkpoint's own
     * directory ({@code <jobId>/chk-<id>/}), ascending, found by listing: one listing per id for at most
     * {@value #SHARED_LISTINGS_PER_ID_UP_TO} ids, else one of every checkpoint directory of the job, filtered.
     */
    public List<Long> checkpointsWithFiles(JobId jobId, long firstId, long lastId) {
        String prefix = jobId.value() + "/chk-";
        java.util.function.ToLongFunction<String> idOf = key -> directoryIdOf(key, prefix);
        return listByCheckpointId(firstId, lastId, id -> checkpointDir(jobId, id) + "/", prefix, idOf).stream()
                .map(idOf::applyAsLong).distinct().sorted().toList();
    }

    /**
     * The keys of the checkpoint ids {@code firstId} to {@code lastId}: each id's prefix listed for at most
     * {@value #SHARED_LISTINGS_PER_ID_UP_TO} ids, else {@code allPrefix} listed once and filtered by {@code idOf}
     * (-1: a key of no checkpoint id).
     */
    private List<String> listByCheckpointId(long firstId, long lastId, java.util.function.LongFunction<String> prefixOf,
                                            String allPrefix, java.util.function.ToLongFunction<String> idOf) {
        if (firstId > lastId) {
            return List.of();
        }
        List<String> found = new ArrayList<>();
        if (lastId - firstId < SHARED_LISTINGS_PER_ID_UP_TO) {
            for (long id = firstId; id <= lastId; id++) {
                found.addAll(store.list(prefixOf.apply(id)));
            }
            return found;
        }
        for (String key : store.list(allPrefix)) {
            long id = idOf.applyAsLong(key);
            if (id >= firstId && id <= lastId) {
                found.add(key);
            }
        }
        return found;
    }

    /** The id in {@code <prefix><id>/...} (up to 18 digits), or -1 when {@code key} is not in such a directory. */
    private static long directoryIdOf(String key, String prefix) {
        int slash = key.indexOf('/', prefix.length());
        if (!key.startsWith(prefix) || slash <= prefix.length() || slash - prefix.length() > 18
                || !key.substring(prefix.length(), slash).chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        return Long.parseLong(key.substring(prefix.length(), slash));
    }

    /** Uploads a file of one checkpoint only to {@code <jobId>/chk-<id>/<vertex>-<subtask>-<localName>}; its path. */
    public String writePrivateFile(JobId jobId, long checkpointId, int vertexId, int subtask, String localName,
                                   java.nio.file.Path file) {
        String path = checkpointDir(jobId, checkpointId) + "/" + vertexId + "-" + subtask + "-" + localName;
        streams.put(path, file);
        return path;
    }

    /** The storage of the full location {@code path} names ({@link #isLocation}): up to its last {@code '/'}. */
    CheckpointStorage otherStorageOf(String path) {
        if (otherLocations == null) {
            throw new IllegalStateException("State file " + path + " is in another storage than " + location()
                    + ", which this storage cannot open");
        }
        return otherLocations.apply(path.substring(0, path.lastIndexOf('/')));
    }

    /**
     * The storage of another location ({@code file:///...}, {@code s3://...} or a plain path), opened through the
     * registry this storage came from, so it shares its counters; this one if it has no registry and
     * {@code location} is its own.
     *
     * @throws IllegalArgumentException for a location no store supports, or when this storage opens none
     */
    public CheckpointStorage storageAt(String location) {
        if (otherLocations != null) {
            return otherLocations.apply(location);
        }
        if (location.equals(location())) {
            return this;
        }
        throw new IllegalArgumentException("Storage " + location() + " cannot open another location (" + location
                + ")");
    }

    /**
     * Writes {@code data} as a checksummed file ({@link StateFileFormat}) at {@code path} in this storage: a
     * file of a savepoint, read back like a state file ({@link #readTaskState}).
     */
    public void writeFile(String path, byte[] data) {
        stateWrites.increment();
        store.put(path, StateFileFormat.encode(data));
    }

    /**
     * Writes the metadata of {@code cp} as {@code <directory>/_metadata} (a savepoint's: not under the job's
     * checkpoint directory) and returns its size in bytes. Its state files must be named as in its own checkpoint
     * directory ({@code <jobId>/chk-<id>/<file>}) and be in {@code directory}: reading the metadata back finds them
     * there ({@link CheckpointMetadataSerializer}).
     */
    public int writeMetadataAt(String directory, CompletedCheckpoint cp) {
        byte[] data = serializer.serialize(cp);
        metadataWrites.increment();
        store.put(directory + "/" + METADATA_FILE, data);
        return data.length;
    }

    /** Whether {@code directory} holds a {@code _metadata} file. */
    public boolean hasMetadata(String directory) {
        metadataReads.increment();
        return store.exists(directory + "/" + METADATA_FILE);
    }

    /** Deletes one file (a shared file no checkpoint refers to any more). Idempotent. */
    public void deleteFile(String path) {
        discards.increment();
        store.delete(path);
    }

    /**
     * Whether {@code path} names a full location ({@code file:///...}, {@code s3://...}) rather than a
     * path in this storage: a state file of a checkpoint read from another location.
     */
    public static boolean isLocation(String path) {
        return path.contains("://");
    }

    /**
     * {@code path} in this storage as a full location that {@link io.sluice.storage.BlobStores#open} accepts
     * (a state file others may read from here): a local one as a {@code file:} URI with its path encoded
     * (a directory name with a space stays openable), others as {@code <location>/<path>}.
     */
    public String locationOf(String path) {
        String location = location();
        if (location.startsWith("file://")) {
            return java.nio.file.Path.of(location.substring("file://".length())).resolve(path).toUri().toString();
        }
        return location + "/" + path;
    }

    /**
     * Writes the metadata of {@code cp} atomically, which makes the checkpoint complete, and returns
     * its path. {@code cp.metadataPath()} may be {@code null}; if set it must equal
     * {@link #metadataPath(JobId, long)}. A later {@link #readMetadata} returns {@code cp} with the
     * returned path.
     */
    public String writeMetadata(CompletedCheckpoint cp) {
        String path = metadataPath(cp.jobId(), cp.checkpointId());
        if (cp.metadataPath() != null && !cp.metadataPath().equals(path)) {
            throw new IllegalArgumentException("Checkpoint " + cp.checkpointId() + " of job " + cp.jobId()
                    + " claims metadata path " + cp.metadataPath() + ", but its metadata belongs at " + path
                    + " in " + location() + "; pass it with a null metadata path");
        }
        byte[] data = serializer.serialize(cp);
        metadataWrites.increment();
        store.put(path, data);
        return path;
    }

    /**
     * Reads a completed checkpoint's metadata.
     *
     * @throws io.sluice.storage.BlobNotFoundException if there is none (the checkpoint never completed)
     * @throws CorruptCheckpointException              if it cannot be decoded
     */
    public CompletedCheckpoint readMetadata(String metadataPath) {
        metadataReads.increment();
        byte[] data = store.get(metadataPath);
        return serializer.deserialize(data, metadataPath);
    }

    /** Deletes a checkpoint's directory (state files and metadata). Idempotent. */
    public void discard(JobId jobId, long checkpointId) {
        discards.increment();
        store.deleteRecursively(checkpointDir(jobId, checkpointId));
    }

    /** Deletes every checkpoint of a job. Idempotent. */
    public void discardJob(JobId jobId) {
        store.deleteRecursively(jobId.value());
    }

    /**
     * The checkpoint id in a metadata path ({@code [<location>/]<jobId>/chk-<id>/_metadata}, as an HA pointer
     * names it), or empty when the path is not one. Does no I/O.
     */
    public static java.util.OptionalLong checkpointIdOf(String metadataPath) {
        Matcher m = METADATA_PATH.matcher(metadataPath);
        if (!m.find()) {
            return java.util.OptionalLong.empty();
        }
        try {
            return java.util.OptionalLong.of(Long.parseLong(m.group(1)));
        } catch (NumberFormatException outOfRange) {
            return java.util.OptionalLong.empty();
        }
    }

    /** Ids of the job's completed checkpoints (those whose metadata exists), ascending. */
    public List<Long> listCheckpointIds(JobId jobId) {
        String prefix = jobId.value() + "/";
        List<Long> ids = new ArrayList<>();
        for (String key : store.list(prefix)) {
            Matcher m = METADATA_KEY.matcher(key.substring(prefix.length()));
            if (m.matches()) {
                try {
                    ids.add(Long.parseLong(m.group(1)));
                } catch (NumberFormatException ignored) {
                    // Not a directory we wrote (id out of range): not a checkpoint.
                }
            }
        }
        ids.sort(null);
        return ids;
    }

    /**
     * Writes and deletes a probe blob, to fail fast at startup rather than at the first checkpoint.
     *
     * @throws StorageException saying the location is not writable and what to do about it
     */
    public void checkWritable() {
        String probe = "_sluice-write-probe-" + UUID.randomUUID();
        try {
            store.put(probe, new byte[] {1});
            store.delete(probe);
        } catch (StorageException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new StorageException("Checkpoint directory " + location() + " is not writable ("
                    + StorageException.describeCause(cause) + "). Choose a writable checkpoints.dir or fix its"
                    + " permissions.", e);
        }
    }

    static String checkpointDir(JobId jobId, long checkpointId) {
        if (checkpointId < 0) {
            throw new IllegalArgumentException("Checkpoint ids are >= 0, got " + checkpointId);
        }
        return jobId.value() + "/chk-" + checkpointId;
    }

    /** Metadata reads requested (see the class comment). */
    public long metadataReads() {
        return metadataReads.get();
    }

    public long metadataWrites() {
        return metadataWrites.get();
    }

    public long stateReads() {
        return stateReads.get();
    }

    public long stateWrites() {
        return stateWrites.get();
    }

    public long discards() {
        return discards.get();
    }

    /** One counted kind of request: a Micrometer counter plus a local count that always works. */
    private static final class Meter {
        private final LongAdder count = new LongAdder();
        private final Counter counter;

        Meter(MeterRegistry registry, String kind) {
            counter = Counter.builder(REQUESTS_METRIC).description("Checkpoint storage requests issued")
                    .tag("kind", kind).register(registry);
        }

        void increment() {
            count.increment();
            counter.increment();
        }

        long get() {
            return count.sum();
        }
    }
}
