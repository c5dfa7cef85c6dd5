package io.sluice.taskexecutor;

import io.sluice.config.Configuration;
import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreads;
import io.sluice.util.DirectoryClaims;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task executor's local copies of the state files its tasks wrote for recent checkpoints,
 * for task-local recovery: a task restarted on this executor restores from here instead of
 * reading checkpoint storage (which may be slow, remote, or down).
 *
 * <p>Two kinds of copies. A heap snapshot's state file is kept in memory ({@link #store}, {@link #retrieve}).
 * The files of a RocksDB incremental checkpoint are kept as files in this executor's local-recovery
 * {@linkplain #directory() directory}: while a snapshot uploads, each uploaded file is kept
 * ({@link #keepFile}: a hard link of an immutable table file, a copy of the others), and once the
 * upload returned its handle the checkpoint's entry maps every storage path the handle names to a
 * local file ({@link #registerFiles}; a table file an earlier checkpoint uploaded keeps the local
 * file of that upload). A local file is deleted once no entry and no upload in progress refers to it.
 *
 * <p>The copy in checkpoint storage stays the source of truth: a local copy is used only for the same
 * checkpoint, state file path and size as the restore handle names; otherwise the caller reads storage.
 * Per subtask at most {@value #MAX_COPIES_PER_SUBTASK} checkpoints are kept (pending ones plus the latest
 * completed one); a completed checkpoint drops the older ones. Keeping a copy is best effort: one that
 * cannot be made is logged and its restore reads storage.
 *
 * <p>Thread-safe: stored, trimmed and discarded on I/O threads, read on task threads (restore), closed by
 * the thread that stops the task executor; never on a main thread ({@link MainThreads#checkNotMainThread}).
 */
public final class TaskLocalStateStore {
    static final int MAX_COPIES_PER_SUBTASK = 4;
    /** The start of {@link #directoryFor}'s names, before the claim token of the process whose task executor it is. */
    static final String DIRECTORY_BASE = "tm-";
    private static final Logger LOG = LoggerFactory.getLogger(TaskLocalStateStore.class);

    /**
     * The start of the names of local-only files ({@link #restoreLocalOnlyFile}), which no storage path has; a
     * checkpoint registered again (after a restore of it) keeps them.
     */
    public static final String LOCAL_ONLY_PREFIX = "local-only:";

    /** Whose state a copy is. */
    record SubtaskKey(JobId jobId, int vertexId, int subtaskIndex) {
    }

    private record LocalCopy(String stateFile, byte[] data) {
    }

    /** One subtask's local files: per checkpoint, storage path to local file. Guarded by itself. */
    private static final class SubtaskFiles {
        final Path directory;
        final TreeMap<Long, Map<String, Path>> checkpoints = new TreeMap<>();
        /** Files kept by uploads still running, per checkpoint. */
        final Map<Long, Map<String, Path>> pending = new HashMap<>();
        boolean discarded;

        SubtaskFiles(Path directory) {
            this.directory = directory;
        }

        Path find(String storagePath) {
            for (Map<String, Path> entry : checkpoints.descendingMap().values()) {
                Path local = entry.get(storagePath);
                if (local != null) {
                    return local;
                }
            }
            return null;
        }

        /** Deletes those of {@code candidates} no entry and no running upload refers to. */
        void deleteUnreferenced(Collection<Path> candidates) {
            if (candidates.isEmpty()) {
                return;
            }
            Set<Path> referenced = new HashSet<>();
            checkpoints.values().forEach(e -> referenced.addAll(e.values()));
            pending.values().forEach(e -> referenced.addAll(e.values()));
            for (Path p : candidates) {
                if (!referenced.contains(p)) {
                    deleteQuietly(p);
                }
            }
        }
    }

    private final Path directory;
    private final Map<SubtaskKey, TreeMap<Long, LocalCopy>> copies = new ConcurrentHashMap<>();
    private final Map<SubtaskKey, SubtaskFiles> files = new ConcurrentHashMap<>();
    private final AtomicLong fileNames = new AtomicLong();
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong localOnlyRestores = new AtomicLong();
    private volatile boolean closed;

    /** A store whose local files go to a new directory under {@code java.io.tmpdir} (tests). */
    public TaskLocalStateStore() {
        this(defaultParent().resolve("local-recovery-" + UUID.randomUUID()));
    }

    /**
     * @param directory where the local files go: created on the first file, deleted by {@link #close}; owned by this
     *                  store (nothing else may write there)
     */
    public TaskLocalStateStore(Path directory) {
        this.directory = java.util.Objects.requireNonNull(directory, "directory");
        // What task executors of killed processes left next to it (directoryFor's names).
        if (directory.getParent() != null) {
            DirectoryClaims.deleteLeftovers(directory.getParent(), DIRECTORY_BASE);
        }
    }

    /**
     * The local-recovery directory of task executor {@code taskExecutorId}: under RocksDB's local directory
     * ({@code state.backend.rocksdb.local-dir}, default {@code java.io.tmpdir/sluice-rocksdb}), so that the table
     * files of RocksDB's checkpoints are hard links rather than copies (a link needs the same file system), in
     * {@code local-recovery/tm-<claim token>-<task executor id>-<random>}, never shared with another task executor.
     * Claims {@code local-recovery} for this process ({@link DirectoryClaims#token}: a lock file held while the
     * process runs), so that a store created there later deletes this one's directory once the process was killed.
     */
    public static Path directoryFor(Configuration configuration, String taskExecutorId) {
        String rocksDbDir = configuration.getString("state.backend.rocksdb.local-dir").map(String::trim).orElse("");
        Path parent = rocksDbDir.isEmpty() ? defaultParent() : Path.of(rocksDbDir);
        Path localRecovery = parent.resolve("local-recovery");
        String token;
        try {
            token = DirectoryClaims.token(localRecovery);
        } catch (IOException e) {
            // Local recovery is best effort (a file that cannot be kept is read from storage): the task executor
            // starts, and only a kill of this process would leave the directory behind.
            LOG.warn("Could not claim {} for task-local recovery ({}); its local copies will not be deleted if this"
                    + " process is killed. Check state.backend.rocksdb.local-dir (a local disk, room and permissions)",
                    localRecovery, e.toString());
            token = "unclaimed-" + ProcessHandle.current().pid();
        }
        return localRecovery.resolve(DIRECTORY_BASE + token + "-" + taskExecutorId.replaceAll("[^A-Za-z0-9._-]+", "_")
                + "-" + UUID.randomUUID());
    }

    private static Path defaultParent() {
        return Path.of(System.getProperty("java.io.tmpdir"), "sluice-rocksdb");
    }

    /** Where the local files of RocksDB's checkpoints go (created on the first one). */
    public Path directory() {
        return directory;
    }

    /** Keeps {@code data}, which was also written to checkpoint storage as {@code stateFile}. */
    public void store(JobId jobId, int vertexId, int subtaskIndex, long checkpointId, String stateFile, byte[] data) {
        TreeMap<Long, LocalCopy> forSubtask = copies.computeIfAbsent(new SubtaskKey(jobId, vertexId, subtaskIndex),
                k -> new TreeMap<>());
        synchronized (forSubtask) {
            forSubtask.put(checkpointId, new LocalCopy(stateFile, data));
            while (forSubtask.size() > MAX_COPIES_PER_SUBTASK) {
                forSubtask.pollFirstEntry();
            }
        }
    }

    /** The local copy of exactly this state file of this checkpoint, if it is here and matches. */
    public Optional<byte[]> retrieve(JobId jobId, int vertexId, int subtaskIndex, long checkpointId, String stateFile,
                                     long expectedSize) {
        TreeMap<Long, LocalCopy> forSubtask = copies.get(new SubtaskKey(jobId, vertexId, subtaskIndex));
        LocalCopy copy = null;
        if (forSubtask != null) {
            synchronized (forSubtask) {
                copy = forSubtask.get(checkpointId);
            }
        }
        if (copy != null && copy.stateFile().equals(stateFile) && copy.data().length == expectedSize) {
            hits.incrementAndGet();
            return Optional.of(copy.data());
        }
        misses.incrementAndGet();
        return Optional.empty();
    }

    /**
     * I/O thread, while checkpoint {@code checkpointId} uploads: keeps a local file of {@code source}, just uploaded
     * to {@code storagePath}: a hard link when {@code immutable} (a RocksDB table file; a copy when the link fails,
     * e.g. across file systems), else a copy (RocksDB may append to its manifest later). It belongs to the
     * checkpoint once {@link #registerFiles} names it, and is deleted by {@link #abandonFiles}. A file that cannot
     * be kept is left out (the restore reads that one from storage) and logged: a warning, unless the source is gone
     * (its task ended while uploading).
     */
    public void keepFile(JobId jobId, int vertexId, int subtaskIndex, long checkpointId, String storagePath,
                         Path source, boolean immutable) {
        if (closed) {
            return;
        }
        SubtaskKey key = new SubtaskKey(jobId, vertexId, subtaskIndex);
        SubtaskFiles forSubtask = files.computeIfAbsent(key, k -> new SubtaskFiles(subtaskDirectory(k)));
        Path local = forSubtask.directory.resolve(fileNames.incrementAndGet() + "-" + source.getFileName());
        try {
            Files.createDirectories(forSubtask.directory);
            if (immutable) {
                linkOrCopy(source, local);
            } else {
                Files.copy(source, local);
            }
        } catch (IOException | RuntimeException e) {
            deleteQuietly(local);
            if (!Files.exists(source)) {
                // The snapshot's own file is gone: its task ended (failed, cancelled) while uploading, and its state
                // backend deleted the snapshot. Nothing of the local-recovery directory is at fault.
                LOG.debug("Did not keep a local copy of {} for checkpoint {}: it no longer exists (its task ended)",
                        source, checkpointId);
                return;
            }
            LOG.warn("Could not keep a local copy of {} (uploaded as {}) in {} for task-local recovery of subtask {}"
                    + " of vertex {}: a restore of checkpoint {} reads that file from checkpoint storage. Check the"
                    + " free space and permissions of the local-recovery directory: {}", source, storagePath,
                    forSubtask.directory, subtaskIndex, vertexId, checkpointId, e.toString());
            return;
        }
        synchronized (forSubtask) {
            if (forSubtask.discarded || closed) {
                deleteQuietly(local);
                return;
            }
            forSubtask.pending.computeIfAbsent(checkpointId, id -> new HashMap<>()).put(storagePath, local);
        }
    }

    /**
     * I/O thread, once checkpoint {@code checkpointId}'s upload returned its handle: the checkpoint's local files
     * are those kept for it and, for the other paths it names (table files uploaded by earlier checkpoints), the
     * local files of those earlier uploads. Paths without a local file are left out (read from storage on restore).
     * Beyond {@value #MAX_COPIES_PER_SUBTASK} checkpoints the oldest one is dropped.
     */
    public void registerFiles(JobId jobId, int vertexId, int subtaskIndex, long checkpointId,
                              Collection<String> storagePaths) {
        SubtaskFiles forSubtask = files.get(new SubtaskKey(jobId, vertexId, subtaskIndex));
        if (forSubtask == null) {
            return; // nothing kept, now or before
        }
        synchronized (forSubtask) {
            Map<String, Path> kept = forSubtask.pending.remove(checkpointId);
            List<Path> candidates = new ArrayList<>(kept == null ? List.of() : kept.values());
            if (forSubtask.discarded) {
                candidates.forEach(TaskLocalStateStore::deleteQuietly);
                return;
            }
            Map<String, Path> entry = new HashMap<>();
            Map<String, Path> previous = forSubtask.checkpoints.get(checkpointId);
            if (previous != null) { // registered again after a restore: its local-only files stay
                previous.forEach((name, local) -> {
                    if (name.startsWith(LOCAL_ONLY_PREFIX)) {
                        entry.put(name, local);
                    }
                });
            }
            for (String path : storagePaths) {
                Path local = kept == null ? null : kept.get(path);
                if (local == null) {
                    local = forSubtask.find(path);
                }
                if (local != null) {
                    entry.put(path, local);
                }
            }
            Map<String, Path> replaced = forSubtask.checkpoints.put(checkpointId, entry);
            if (replaced != null) {
                candidates.addAll(replaced.values());
            }
            while (forSubtask.checkpoints.size() > MAX_COPIES_PER_SUBTASK) {
                candidates.addAll(forSubtask.checkpoints.pollFirstEntry().getValue().values());
            }
            forSubtask.deleteUnreferenced(candidates);
        }
    }

    /** I/O thread: checkpoint {@code checkpointId}'s upload failed; the files kept for it go. */
    public void abandonFiles(JobId jobId, int vertexId, int subtaskIndex, long checkpointId) {
        SubtaskFiles forSubtask = files.get(new SubtaskKey(jobId, vertexId, subtaskIndex));
        if (forSubtask != null) {
            synchronized (forSubtask) {
                Map<String, Path> kept = forSubtask.pending.remove(checkpointId);
                if (kept != null) {
                    forSubtask.deleteUnreferenced(kept.values());
                }
            }
        }
    }

    /** Whether this subtask has a local file of {@code storagePath} for {@code checkpointId}; counts nothing. */
    public boolean hasFile(JobId jobId, int vertexId, int subtaskIndex, long checkpointId, String storagePath) {
        SubtaskFiles forSubtask = files.get(new SubtaskKey(jobId, vertexId, subtaskIndex));
        if (forSubtask == null) {
            return false;
        }
        synchronized (forSubtask) {
            Map<String, Path> entry = forSubtask.checkpoints.get(checkpointId);
            return !forSubtask.discarded && entry != null && entry.containsKey(storagePath);
        }
    }

    /**
     * A restore's thread, restoring checkpoint {@code checkpointId}: puts the local file of {@code storagePath} at
     * {@code target} (a hard link when {@code immutable}, else a copy) if this subtask has one of
     * {@code expectedSize} bytes for that checkpoint, and returns whether it did (a hit); else nothing is at
     * {@code target} and the caller reads storage (a miss).
     */
    public boolean restoreFile(JobId jobId, int vertexId, int subtaskIndex, long checkpointId, String storagePath,
                               long expectedSize, Path target, boolean immutable) {
        boolean hit = restore(jobId, vertexId, subtaskIndex, checkpointId, storagePath, expectedSize, target,
                immutable);
        (hit ? hits : misses).incrementAndGet();
        return hit;
    }

    /**
     * Task thread, restoring checkpoint {@code checkpointId}: puts the local-only file {@code name} (kept with
     * {@link #keepFile} under that name, never uploaded: nothing in storage stands for it) at {@code target}, as
     * {@link #restoreFile} does, and returns whether it did; counted neither as a hit nor as a miss, since storage is
     * read in neither case.
     */
    public boolean restoreLocalOnlyFile(JobId jobId, int vertexId, int subtaskIndex, long checkpointId, String name,
                                        Path target, boolean immutable) {
        boolean restored = restore(jobId, vertexId, subtaskIndex, checkpointId, name, -1, target, immutable);
        if (restored) {
            localOnlyRestores.incrementAndGet();
        }
        return restored;
    }

    /** {@code expectedSize} -1: any size. */
    private boolean restore(JobId jobId, int vertexId, int subtaskIndex, long checkpointId, String storagePath,
                            long expectedSize, Path target, boolean immutable) {
        SubtaskFiles forSubtask = files.get(new SubtaskKey(jobId, vertexId, subtaskIndex));
        if (forSubtask != null) {
            synchronized (forSubtask) { // no confirm deletes it meanwhile
                Map<String, Path> entry = forSubtask.checkpoints.get(checkpointId);
                Path local = entry == null ? null : entry.get(storagePath);
                if (local != null && !forSubtask.discarded) {
                    try {
                        if (expectedSize < 0 || Files.size(local) == expectedSize) {
                            if (immutable) {
                                linkOrCopy(local, target);
                            } else {
                                Files.copy(local, target, StandardCopyOption.REPLACE_EXISTING);
                            }
                            return true;
                        }
                        LOG.warn("The local copy {} of {} has {} bytes, the checkpoint names {}: reading storage",
                                local, storagePath, Files.size(local), expectedSize);
                    } catch (IOException e) {
                        deleteQuietly(target);
                        LOG.warn("Could not use the local copy {} of {} for checkpoint {}: reading storage: {}", local,
                                storagePath, checkpointId, e.toString());
                    }
                }
            }
        }
        return false;
    }

    /** Checkpoint {@code checkpointId} completed: older copies of this subtask are no longer needed. */
    public void confirm(JobId jobId, int vertexId, int subtaskIndex, long checkpointId) {
        SubtaskKey key = new SubtaskKey(jobId, vertexId, subtaskIndex);
        TreeMap<Long, LocalCopy> forSubtask = copies.get(key);
        if (forSubtask != null) {
            synchronized (forSubtask) {
                forSubtask.headMap(checkpointId, false).clear();
            }
        }
        SubtaskFiles subtaskFiles = files.get(key);
        if (subtaskFiles != null) {
            synchronized (subtaskFiles) {
                Map<Long, Map<String, Path>> older = subtaskFiles.checkpoints.headMap(checkpointId, false);
                List<Path> candidates = new ArrayList<>();
                older.values().forEach(e -> candidates.addAll(e.values()));
                older.clear();
                subtaskFiles.deleteUnreferenced(candidates);
            }
        }
    }

    /** Drops the copies of one subtask (it finished: nothing of it will be restored here). */
    public void discard(JobId jobId, int vertexId, int subtaskIndex) {
        SubtaskKey key = new SubtaskKey(jobId, vertexId, subtaskIndex);
        copies.remove(key);
        SubtaskFiles forSubtask = files.remove(key);
        if (forSubtask != null) {
            synchronized (forSubtask) {
                forSubtask.discarded = true;
                forSubtask.checkpoints.clear();
                forSubtask.pending.clear();
                deleteRecursively(forSubtask.directory);
            }
        }
    }

    /** Drops every copy of a job (it ended, or this executor no longer runs it). */
    public void discardJob(JobId jobId) {
        copies.keySet().removeIf(k -> k.jobId().equals(jobId));
        for (SubtaskKey k : List.copyOf(files.keySet())) {
            if (k.jobId().equals(jobId)) {
                discard(k.jobId(), k.vertexId(), k.subtaskIndex());
            }
        }
        deleteRecursively(directory.resolve(dirName(jobId.value())));
    }

    /** The task executor stops: every copy goes, with the local-recovery directory. Later uploads keep none. */
    public void close() {
        closed = true;
        copies.clear();
        for (SubtaskKey k : List.copyOf(files.keySet())) {
            discard(k.jobId(), k.vertexId(), k.subtaskIndex());
        }
        deleteRecursively(directory);
    }

    /** Local-only files put in place by restores ({@link #restoreLocalOnlyFile}). */
    public long localOnlyRestores() {
        return localOnlyRestores.get();
    }

    /** Restores served from a local copy (for RocksDB's checkpoints: files served from a local file). */
    public long hits() {
        return hits.get();
    }

    /** Restores that found no matching local copy and read checkpoint storage (for RocksDB: files). */
    public long misses() {
        return misses.get();
    }

    /** The local files the subtask's entries refer to (for tests). */
    Set<Path> localFiles(JobId jobId, int vertexId, int subtaskIndex) {
        SubtaskFiles forSubtask = files.get(new SubtaskKey(jobId, vertexId, subtaskIndex));
        Set<Path> all = new HashSet<>();
        if (forSubtask != null) {
            synchronized (forSubtask) {
                forSubtask.checkpoints.values().forEach(e -> all.addAll(e.values()));
                forSubtask.pending.values().forEach(e -> all.addAll(e.values()));
            }
        }
        return all;
    }

    private Path subtaskDirectory(SubtaskKey k) {
        return directory.resolve(dirName(k.jobId().value())).resolve(k.vertexId() + "-" + k.subtaskIndex());
    }

    private static String dirName(String s) {
        return s.replaceAll("[^A-Za-z0-9._-]+", "_");
    }

    private static void linkOrCopy(Path source, Path target) throws IOException {
        MainThreads.checkNotMainThread("task-local state: keep " + target);
        try {
            Files.createLink(target, source);
        } catch (IOException | UnsupportedOperationException e) { // another file system, or no links: a copy
            Files.deleteIfExists(target);
            Files.copy(source, target);
        }
    }

    private static void deleteQuietly(Path p) {
        MainThreads.checkNotMainThread("task-local state: delete " + p);
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            LOG.debug("Could not delete the local-recovery file {}", p, e);
        }
    }

    private static void deleteRecursively(Path dir) { // each delete checks the thread (deleteQuietly)
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(TaskLocalStateStore::deleteQuietly);
        } catch (IOException | java.io.UncheckedIOException e) {
            LOG.warn("Could not delete the local-recovery directory {}: delete it by hand: {}", dir, e.toString());
        }
    }
}
