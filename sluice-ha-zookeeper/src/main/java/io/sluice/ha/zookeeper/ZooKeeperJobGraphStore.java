package io.sluice.ha.zookeeper;

import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.JobAlreadySubmittedException;
import io.sluice.ha.JobGraphStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Job graphs as znodes {@code <base>/jobgraphs/<jobId>} holding {@link JobGraph#toBytes()}.
 * Writes are transactions through {@link ZooKeeperHaServices#commit} (fenced when made inside
 * {@code runIfLeader}, as the job master's removal and the leading Dispatcher's put are).
 * {@link #putJobGraph} only creates: a {@code create} in the transaction fails with NodeExists if
 * the job was stored before, and the put is rejected with {@link JobAlreadySubmittedException}
 * (so of concurrent puts of one job id exactly one succeeds); {@link #removeJobGraph} treats a
 * missing node as done.
 * Thread-safe; blocking; every method first checks that it is not on a main thread.
 */
public final class ZooKeeperJobGraphStore implements JobGraphStore {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperJobGraphStore.class);

    private final ZooKeeperHaServices zk;
    private final String dir;

    ZooKeeperJobGraphStore(ZooKeeperHaServices zk, String dir) {
        this.zk = zk;
        this.dir = dir;
    }

    @Override
    public void putJobGraph(JobGraph jobGraph) throws Exception {
        String path = pathOf(jobGraph.jobId());
        if (!ZooKeeperStores.createIfAbsent(zk, dir, path, jobGraph.toBytes(), "store job graph")) {
            throw new JobAlreadySubmittedException(jobGraph.jobId(), path + " in ZooKeeper " + zk.quorum());
        }
    }

    @Override
    public Collection<JobId> jobIds() throws Exception {
        List<JobId> ids = new ArrayList<>();
        for (String name : ZooKeeperStores.children(zk, dir)) {
            try {
                ids.add(JobId.of(name));
            } catch (IllegalArgumentException e) {
                LOG.warn("Ignoring znode {} in the job graph store: not named by a job id", ZKPaths.makePath(dir, name));
            }
        }
        return ids;
    }

    @Override
    public JobGraph recoverJobGraph(JobId jobId) throws Exception {
        String path = pathOf(jobId);
        ZooKeeperGuard.check("read job graph", path);
        byte[] data;
        try {
            data = zk.client().getData().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            throw new IOException("There is no job graph of job " + jobId + " at " + path + " in ZooKeeper "
                    + zk.quorum() + ": it was removed (the job ended) or never stored. Resubmit the job if it should"
                    + " still run.", e);
        }
        JobGraph graph;
        try {
            graph = JobGraph.fromBytes(data);
        } catch (RuntimeException e) {
            throw new IOException("The job graph of job " + jobId + " at " + path + " in ZooKeeper " + zk.quorum()
                    + " is corrupt (" + e.getMessage() + "). Remove the znode and resubmit the job.", e);
        }
        if (!graph.jobId().equals(jobId)) {
            throw new IOException("The znode " + path + " of job " + jobId + " holds the job graph of job "
                    + graph.jobId() + "; it was copied by hand. Remove it or restore the right graph.");
        }
        return graph;
    }

    @Override
    public void removeJobGraph(JobId jobId) throws Exception {
        ZooKeeperStores.deleteIfExists(zk, pathOf(jobId), "remove job graph");
    }

    private String pathOf(JobId jobId) {
        return ZKPaths.makePath(dir, jobId.value());
    }
}
