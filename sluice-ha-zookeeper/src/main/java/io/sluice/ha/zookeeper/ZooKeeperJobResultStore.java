package io.sluice.ha.zookeeper;

import io.sluice.core.serialization.LegacySerializerObjectInputStream;
import io.sluice.graph.JobId;
import io.sluice.ha.JobResultStore;
import io.sluice.job.JobResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Results of ended jobs as znodes {@code <base>/jobresults/<jobId>} holding the Java-serialized
 * {@link JobResult}. {@link #putResult} is a transaction through {@link ZooKeeperHaServices#commit},
 * fenced on the leader node when called inside {@code runIfLeader} (as the job manager does);
 * idempotent (creates, or overwrites an existing node). Thread-safe; blocking; every method first
 * checks that it is not on a main thread.
 */
public final class ZooKeeperJobResultStore implements JobResultStore {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperJobResultStore.class);

    private final ZooKeeperHaServices zk;
    private final String dir;

    ZooKeeperJobResultStore(ZooKeeperHaServices zk, String dir) {
        this.zk = zk;
        this.dir = dir;
    }

    @Override
    public void putResult(JobResult result) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(result);
        }
        ZooKeeperStores.createOrReplace(zk, dir, pathOf(result.jobId()), bytes.toByteArray(), "store job result");
    }

    @Override
    public boolean hasResult(JobId jobId) throws Exception {
        String path = pathOf(jobId);
        ZooKeeperGuard.check("exists", path);
        return zk.client().checkExists().forPath(path) != null;
    }

    @Override
    public Optional<JobResult> result(JobId jobId) throws Exception {
        return read(jobId);
    }

    @Override
    public Collection<JobResult> results() throws Exception {
        List<JobResult> results = new ArrayList<>();
        for (String name : ZooKeeperStores.children(zk, dir)) {
            JobId jobId;
            try {
                jobId = JobId.of(name);
            } catch (IllegalArgumentException e) {
                LOG.warn("Ignoring znode {} in the job result store: not named by a job id", ZKPaths.makePath(dir, name));
                continue;
            }
            read(jobId).ifPresent(results::add);
        }
        return results;
    }

    @Override
    public void removeResult(JobId jobId) throws Exception {
        ZooKeeperStores.deleteIfExists(zk, pathOf(jobId), "remove job result");
    }

    private Optional<JobResult> read(JobId jobId) throws Exception {
        String path = pathOf(jobId);
        ZooKeeperGuard.check("read job result", path);
        byte[] data;
        try {
            data = zk.client().getData().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        }
        Object value;
        try (ObjectInputStream in = new LegacySerializerObjectInputStream(new ByteArrayInputStream(data), JobResult.class.getClassLoader())) {
            value = in.readObject();
        } catch (IOException | ClassNotFoundException e) {
            throw new IOException("The result of job " + jobId + " at " + path + " in ZooKeeper " + zk.quorum()
                    + " is corrupt (" + e + "); removing the znode lets the job run again.", e);
        }
        if (!(value instanceof JobResult result) || !result.jobId().equals(jobId)) {
            throw new IOException("The znode " + path + " does not hold the result of job " + jobId
                    + "; it was copied by hand. Restore the right data.");
        }
        return Optional.of(result);
    }

    private String pathOf(JobId jobId) {
        return ZKPaths.makePath(dir, jobId.value());
    }
}
