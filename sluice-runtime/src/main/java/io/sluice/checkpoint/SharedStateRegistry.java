package io.sluice.checkpoint;

import io.sluice.graph.JobId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Decides when a shared file of incremental checkpoints (a RocksDB table file that several
 * checkpoints of a task refer to) may be deleted: when the last checkpoint that refers to it is
 * discarded.
 *
 * <p><b>What it holds.</b> For every shared file, the ids of the <em>completed</em> checkpoints that
 * refer to it. A checkpoint is registered when it is finalized (before its metadata is written, which
 * carries the registry: {@link #references()}), and released when its files are discarded (subsumed
 * by retention, refused before its pointer was written, or discarded after the restore that pinned it
 * finished). Releasing a checkpoint deletes exactly the files no other registered checkpoint refers
 * to. These are not counts: an aborted or failed checkpoint is never registered, so it cannot make a
 * count wrong; its new files are known as the shared files of its acknowledgements that no registered
 * checkpoint refers to ({@link #unregistered}) and are deleted with it. A task refers to an earlier
 * upload only once the checkpoint that uploaded it completed (it was told so), so a file a pending
 * checkpoint refers to is always registered by a retained checkpoint too.
 *
 * <p><b>Only the job's own files.</b> Files outside {@code <jobId>/shared/} (another job's, which a
 * checkpoint never refers to today: the first checkpoint after a restore uploads every file again)
 * are never deleted.
 *
 * <p><b>After a job-manager failover</b> ({@link #recover}) the registry is rebuilt from the latest
 * checkpoint's metadata alone, which the recovery reads anyway: its {@code sharedFileReferences}
 * hold the registry as it was when that checkpoint completed. References of checkpoints that are no
 * longer retained are dropped, and files left without a reference (a discard the failover cut short,
 * or a delete handed out but not confirmed: those are written with no referring checkpoint) are deleted
 * again; no other checkpoint's file is read and nothing is listed. A task failover keeps the
 * registry as it is (the job master and its coordinator stay).
 *
 * <p>Threading: not thread-safe; the job master's main thread only (its checkpoint coordinator).
 */
public final class SharedStateRegistry {
    private final String ownPrefix;
    /** Shared file path to the ids of the registered checkpoints that refer to it. */
    private final Map<String, TreeSet<Long>> referencedBy = new HashMap<>();
    /** Registered checkpoint id to its shared files. */
    private final Map<Long, Set<String>> filesOf = new TreeMap<>();
    /**
     * Files handed out for deletion whose delete has not been confirmed ({@link #deleted}): written into
     * the next checkpoint's metadata without a referring checkpoint, so that a new leader deletes them
     * again if this job manager dies before its deletes ran.
     */
    private final Set<String> deleting = new TreeSet<>();

    public SharedStateRegistry(JobId jobId) {
        this.ownPrefix = sharedDirectory(jobId) + "/";
    }

    /** Where a job's shared files are: {@code <jobId>/shared}. */
    public static String sharedDirectory(JobId jobId) {
        return jobId.value() + "/shared";
    }

    /** What the name of every shared file starts with, before the id of the checkpoint it was uploaded for. */
    public static final String UPLOAD_PREFIX = "ck";

    /**
     * What the path of every shared file uploaded for checkpoint {@code checkpointId} starts with:
     * {@code <jobId>/shared/ck<checkpointId>-}. (Files of releases before 2026-12-07 are named
     * {@code <vertex>-<subtask>-...}, without it.)
     */
    public static String uploadPrefix(JobId jobId, long checkpointId) {
        return sharedDirectory(jobId) + "/" + UPLOAD_PREFIX + checkpointId + "-";
    }

    /**
     * The id of the checkpoint the shared file {@code path} was uploaded for, given {@code prefix}, what its
     * path starts with up to the id ({@code <jobId>/shared/ck}); -1 if the path has no id there.
     */
    public static long uploadedFor(String path, String prefix) {
        if (!path.startsWith(prefix)) {
            return -1;
        }
        int end = path.indexOf('-', prefix.length());
        if (end <= prefix.length() || end - prefix.length() > 18) {
            return -1;
        }
        long id = 0;
        for (int i = prefix.length(); i < end; i++) {
            char c = path.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            id = id * 10 + (c - '0');
        }
        return id;
    }

    /**
     * The registry of a job master that recovered {@code latest} (the newest retained checkpoint,
     * {@code null} for none) with {@code retainedIds}: {@code latest}'s references, without the
     * checkpoints no longer retained. {@link Recovered#orphans} are the job's files that no retained
     * checkpoint refers to any more, to delete.
     */
    public static Recovered recover(JobId jobId, CompletedCheckpoint latest, Collection<Long> retainedIds) {
        SharedStateRegistry registry = new SharedStateRegistry(jobId);
        List<String> orphans = new ArrayList<>();
        if (latest == null || !latest.jobId().equals(jobId)) {
            return new Recovered(registry, orphans); // none, or another job's (restore-from): nothing of ours
        }
        Set<Long> retained = new HashSet<>(retainedIds);
        retained.add(latest.checkpointId());
        Map<String, List<Long>> refs = new HashMap<>(latest.sharedFileReferences());
        for (String file : latest.sharedFiles()) {
            refs.computeIfAbsent(file, f -> new ArrayList<>()).add(latest.checkpointId());
        }
        for (Map.Entry<String, List<Long>> e : refs.entrySet()) {
            boolean kept = false;
            for (long id : e.getValue()) {
                if (retained.contains(id)) {
                    registry.add(e.getKey(), id);
                    kept = true;
                }
            }
            if (!kept && registry.isOwn(e.getKey())) {
                orphans.add(e.getKey());
            }
        }
        orphans.sort(null);
        registry.deleting.addAll(orphans);
        return new Recovered(registry, orphans);
    }

    /** A recovered registry and the files it found no retained checkpoint refers to. */
    public record Recovered(SharedStateRegistry registry, List<String> orphans) {
    }

    /** Registers the completed (finalizing) checkpoint {@code cp}: it refers to its handles' shared files. */
    public void register(CompletedCheckpoint cp) {
        for (String file : cp.sharedFiles()) {
            add(file, cp.checkpointId());
        }
        filesOf.computeIfAbsent(cp.checkpointId(), id -> new HashSet<>());
    }

    private void add(String file, long checkpointId) {
        referencedBy.computeIfAbsent(file, f -> new TreeSet<>()).add(checkpointId);
        filesOf.computeIfAbsent(checkpointId, id -> new HashSet<>()).add(file);
    }

    /**
     * The checkpoint {@code checkpointId} is discarded: it refers to nothing any more. Returns the
     * job's shared files no registered checkpoint refers to now, which the caller deletes. Nothing for
     * a checkpoint that was never registered.
     */
    public List<String> release(long checkpointId) {
        Set<String> files = filesOf.remove(checkpointId);
        List<String> unreferenced = new ArrayList<>();
        if (files == null) {
            return unreferenced;
        }
        for (String file : files) {
            TreeSet<Long> ids = referencedBy.get(file);
            ids.remove(checkpointId);
            if (ids.isEmpty()) {
                referencedBy.remove(file);
                if (isOwn(file)) {
                    unreferenced.add(file);
                }
            }
        }
        unreferenced.sort(null);
        deleting.addAll(unreferenced);
        return unreferenced;
    }

    /** The deletes of {@code files} (handed out by this registry) succeeded: they are gone for good. */
    public void deleted(Collection<String> files) {
        deleting.removeAll(files);
    }

    /** Files handed out for deletion whose delete was not confirmed yet, ascending. */
    public List<String> deleting() {
        return List.copyOf(deleting);
    }

    /**
     * The job's shared files among {@code handles} (acknowledgements of a checkpoint that will not
     * complete) that no registered checkpoint refers to: uploaded for that checkpoint only, to delete.
     */
    public List<String> unregistered(Collection<TaskStateHandle> handles) {
        List<String> files = new ArrayList<>();
        for (TaskStateHandle h : handles) {
            if (h != null && h.incremental() != null) {
                h.incremental().sharedFiles().forEach(f -> {
                    if (!referencedBy.containsKey(f.path()) && isOwn(f.path())) {
                        files.add(f.path());
                    }
                });
            }
        }
        deleting.addAll(files);
        return files;
    }

    /**
     * The registry for a checkpoint's metadata: every shared file and the registered checkpoints referring
     * to it, and the files whose delete is not confirmed yet with no checkpoint ({@link #deleting()}).
     */
    public Map<String, List<Long>> references() {
        Map<String, List<Long>> out = new TreeMap<>();
        deleting.forEach(file -> out.put(file, List.of()));
        referencedBy.forEach((file, ids) -> out.put(file, List.copyOf(ids)));
        return out;
    }

    /**
     * Whether this registry knows {@code file}: a registered checkpoint refers to it, or its delete is
     * pending ({@link #deleting()}).
     */
    public boolean knows(String file) {
        return referencedBy.containsKey(file) || deleting.contains(file);
    }

    /**
     * {@code files}, uploads of checkpoints that never completed that no acknowledgement named (a task's
     * process killed while it uploaded), are handed out for deletion: until their deletes are confirmed
     * ({@link #deleted}), they are among the {@link #deleting()} that the next metadata names, so a new leader
     * deletes them again. Files this registry {@linkplain #knows knows} are not taken; returns those taken.
     */
    public List<String> abandoned(Collection<String> files) {
        List<String> taken = new ArrayList<>();
        for (String file : files) {
            if (isOwn(file) && !knows(file)) {
                taken.add(file);
            }
        }
        taken.sort(null);
        deleting.addAll(taken);
        return taken;
    }

    /** Whether a registered checkpoint refers to {@code file}. */
    public boolean isReferenced(String file) {
        return referencedBy.containsKey(file);
    }

    /** The ids of the registered checkpoints, ascending. */
    public List<Long> registeredCheckpoints() {
        return List.copyOf(filesOf.keySet());
    }

    /** How many shared files are referred to or being deleted (0: a checkpoint's metadata needs no registry). */
    public int size() {
        return referencedBy.size() + deleting.size();
    }

    private boolean isOwn(String file) {
        return file.startsWith(ownPrefix);
    }

    @Override
    public String toString() {
        return "SharedStateRegistry{" + referencedBy.size() + " files, checkpoints " + filesOf.keySet() + "}";
    }
}
