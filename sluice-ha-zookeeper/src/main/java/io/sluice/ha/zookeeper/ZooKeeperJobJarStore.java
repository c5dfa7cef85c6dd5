package io.sluice.ha.zookeeper;

import io.sluice.graph.JobId;
import io.sluice.jar.JobJarStore;
import io.sluice.rpc.MainThreads;
import io.sluice.storage.BlobNotFoundException;
import io.sluice.storage.BlobStore;
import io.sluice.storage.StorageException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;

/**
 * The {@link JobJarStore} of the ZooKeeper HA services: the jar's bytes go to the shared storage
 * ({@code high-availability.storage-dir}, any {@link BlobStore} location: a shared mount or
 * {@code s3://}) at {@code <clusterId>/jobjars/<jobId>.jar}, and a znode
 * {@code <base>/jobjars/<jobId>} beside the job graph records the blob's key and the jar's SHA-256
 * digest. A job manager that recovers the job reads the znode, fetches the blob and checks the
 * digest before it loads a class from it, so a jar that was changed, truncated or replaced in the
 * storage is refused with an error naming the job and both digests.
 *
 * <p>Order of writes: {@link #putJobJar} writes the blob first and then the znode, so a znode always
 * names a complete blob; {@link #removeJobJar} deletes the znode first (a transaction through
 * {@link ZooKeeperHaServices#commit}, so fenced on the job's leadership when called inside
 * {@code runIfLeader}, as the job master's clean-up is) and only then the blob, so a writer that
 * lost its leadership removes nothing. Names come from job ids only, never from user input.
 *
 * <p>Threading: thread-safe; every method blocks on ZooKeeper and the storage and first checks that
 * it is not on a component main thread (callers use the I/O executor).
 */
final class ZooKeeperJobJarStore implements JobJarStore {
    private static final String DIGEST_PREFIX = "sha256=";
    private static final String BLOB_PREFIX = "blob=";

    private final ZooKeeperHaServices zk;
    private final String dir;
    private final BlobStore storage;
    private final String blobPrefix;

    /**
     * @param dir        the znode directory of the digests ({@code <base>/jobjars})
     * @param storage    the shared storage of the jar bytes
     * @param blobPrefix key prefix in the storage, e.g. {@code <clusterId>/jobjars}
     */
    ZooKeeperJobJarStore(ZooKeeperHaServices zk, String dir, BlobStore storage, String blobPrefix) {
        this.zk = zk;
        this.dir = dir;
        this.storage = storage;
        this.blobPrefix = blobPrefix;
    }

    private String znodeOf(JobId jobId) {
        return ZKPaths.makePath(dir, jobId.value());
    }

    private String blobOf(JobId jobId) {
        return blobPrefix + "/" + jobId.value() + ".jar";
    }

    @Override
    public void putJobJar(JobId jobId, Path jar) throws IOException {
        MainThreads.checkNotMainThread("job jar store put " + jobId);
        byte[] bytes = Files.readAllBytes(jar);
        String key = blobOf(jobId);
        try {
            storage.put(key, bytes);
        } catch (StorageException e) {
            throw new IOException("Could not store the jar of job " + jobId + " at " + key + " in "
                    + storage.describe() + " (" + e.getMessage() + "); check that "
                    + ZooKeeperHaOptions.STORAGE_DIR.key() + " is reachable and writable", e);
        }
        byte[] record = (DIGEST_PREFIX + sha256(bytes) + "\n" + BLOB_PREFIX + key + "\n").getBytes(StandardCharsets.UTF_8);
        try {
            ZooKeeperStores.createOrReplace(zk, dir, znodeOf(jobId), record, "store job jar digest");
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("Could not record the jar of job " + jobId + " in ZooKeeper " + zk.quorum()
                    + " at " + znodeOf(jobId) + " (" + e + "); the job is not submitted, try again", e);
        }
    }

    @Override
    public boolean hasJobJar(JobId jobId) throws IOException {
        MainThreads.checkNotMainThread("job jar store lookup " + jobId);
        String path = znodeOf(jobId);
        ZooKeeperGuard.check("look up job jar", path);
        try {
            return zk.client().checkExists().forPath(path) != null;
        } catch (Exception e) {
            throw new IOException("Could not look up the jar of job " + jobId + " at " + path + " in ZooKeeper "
                    + zk.quorum() + " (" + e + ")", e);
        }
    }

    @Override
    public void copyJobJar(JobId jobId, Path target) throws IOException {
        MainThreads.checkNotMainThread("job jar store read " + jobId);
        Record record = readRecord(jobId);
        byte[] bytes;
        try {
            bytes = storage.get(record.blob());
        } catch (BlobNotFoundException e) {
            throw new IOException("The jar of job " + jobId + " is missing from " + storage.describe() + " ("
                    + record.blob() + ") although ZooKeeper " + znodeOf(jobId) + " records it: the storage was cleaned"
                    + " or " + ZooKeeperHaOptions.STORAGE_DIR.key() + " differs between job managers. Use the same"
                    + " storage on every job manager, or resubmit the jar", e);
        } catch (StorageException e) {
            throw new IOException("Could not read the jar of job " + jobId + " from " + storage.describe() + " ("
                    + e.getMessage() + ")", e);
        }
        String actual = sha256(bytes);
        if (!actual.equals(record.sha256())) {
            throw new IOException("The jar of job " + jobId + " at " + record.blob() + " in " + storage.describe()
                    + " has SHA-256 " + actual + ", but ZooKeeper " + znodeOf(jobId) + " records SHA-256 "
                    + record.sha256() + " for it: the stored jar was changed or damaged, so its classes are not"
                    + " loaded. Restore the original jar there, or cancel the job and resubmit the jar");
        }
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.write(tmp, bytes);
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    public void removeJobJar(JobId jobId) throws IOException {
        MainThreads.checkNotMainThread("job jar store remove " + jobId);
        try {
            ZooKeeperStores.deleteIfExists(zk, znodeOf(jobId), "remove job jar digest");
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("Could not remove the jar record of job " + jobId + " at " + znodeOf(jobId)
                    + " in ZooKeeper " + zk.quorum() + " (" + e + ")", e);
        }
        try {
            storage.delete(blobOf(jobId));
        } catch (StorageException e) {
            throw new IOException("Could not delete the jar of job " + jobId + " (" + blobOf(jobId) + ") from "
                    + storage.describe() + " (" + e.getMessage() + ")", e);
        }
    }

    /** The digest and blob key recorded for a job's jar. */
    record Record(String sha256, String blob) {}

    Record readRecord(JobId jobId) throws IOException {
        String path = znodeOf(jobId);
        ZooKeeperGuard.check("read job jar digest", path);
        byte[] data;
        try {
            data = zk.client().getData().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            throw new IOException("There is no jar of job " + jobId + " recorded at " + path + " in ZooKeeper "
                    + zk.quorum() + ": it was removed (the job ended) or never stored; resubmit the jar if the job"
                    + " should still run", e);
        } catch (Exception e) {
            throw new IOException("Could not read the jar record of job " + jobId + " at " + path + " in ZooKeeper "
                    + zk.quorum() + " (" + e + ")", e);
        }
        String sha = null;
        String blob = null;
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith(DIGEST_PREFIX)) {
                sha = line.substring(DIGEST_PREFIX.length());
            } else if (line.startsWith(BLOB_PREFIX)) {
                blob = line.substring(BLOB_PREFIX.length());
            }
        }
        if (sha == null || blob == null || !blob.equals(blobOf(jobId))) {
            throw new IOException("The jar record of job " + jobId + " at " + path + " in ZooKeeper " + zk.quorum()
                    + " is corrupt (expected 'sha256=<hex>' and 'blob=" + blobOf(jobId) + "'); cancel the job and"
                    + " resubmit the jar");
        }
        return new Record(sha, blob);
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("This JVM has no SHA-256", e);
        }
    }
}
