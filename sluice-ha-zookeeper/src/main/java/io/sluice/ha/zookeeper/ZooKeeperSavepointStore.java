package io.sluice.ha.zookeeper;

import io.sluice.checkpoint.Savepoint;
import io.sluice.graph.JobId;
import io.sluice.ha.SavepointEntry;
import io.sluice.ha.SavepointStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;

/**
 * Savepoint entries as znodes {@code <base>/savepoints/<jobId>/<checkpointId, 19 digits>} holding
 * {@link SavepointEntry}'s text (a few hundred bytes each, at most the newest {@code retain} per job).
 * Writes are transactions through {@link ZooKeeperHaServices#commit} (fenced when called inside
 * {@code runIfLeader}); an add creates or overwrites the entry, so it is idempotent. A read lists
 * the jobs, then each job's entries, and reads each; an entry that cannot be read is reported,
 * never fails the read.
 *
 * <p>Threading: thread-safe; blocking; every method first checks that it is not on a main thread.
 */
final class ZooKeeperSavepointStore implements SavepointStore {
    private final ZooKeeperHaServices zk;
    private final String dir;

    ZooKeeperSavepointStore(ZooKeeperHaServices zk, String dir) {
        this.zk = zk;
        this.dir = dir;
    }

    @Override
    public void addSavepoint(Savepoint savepoint, int retain) throws Exception {
        String jobDir = ZKPaths.makePath(dir, savepoint.jobId().value());
        String path = ZKPaths.makePath(jobDir, SavepointEntry.nameOf(savepoint.checkpointId()));
        ZooKeeperStores.createOrReplace(zk, jobDir, path, SavepointEntry.toBytes(savepoint), "store savepoint entry");
        List<String> names = new ArrayList<>(ZooKeeperStores.children(zk, jobDir));
        names.removeIf(n -> n.length() != 19 || !n.chars().allMatch(Character::isDigit));
        names.sort(null);
        for (int i = 0; i < names.size() - retain; i++) {
            ZooKeeperStores.deleteIfExists(zk, ZKPaths.makePath(jobDir, names.get(i)), "remove old savepoint entry");
        }
    }

    @Override
    public Stored savepoints() throws Exception {
        Map<JobId, List<Savepoint>> byJob = new HashMap<>();
        List<String> unreadable = new ArrayList<>();
        for (String name : ZooKeeperStores.children(zk, dir)) {
            JobId jobId;
            try {
                jobId = JobId.of(name);
            } catch (IllegalArgumentException e) {
                unreadable.add("znode " + ZKPaths.makePath(dir, name) + " in ZooKeeper " + zk.quorum()
                        + ": not named by a job id");
                continue;
            }
            read(jobId, byJob, unreadable);
        }
        return new Stored(byJob, unreadable);
    }

    @Override
    public Stored savepoints(JobId jobId) throws Exception {
        Map<JobId, List<Savepoint>> byJob = new HashMap<>();
        List<String> unreadable = new ArrayList<>();
        read(jobId, byJob, unreadable);
        return new Stored(byJob, unreadable);
    }

    private void read(JobId jobId, Map<JobId, List<Savepoint>> byJob, List<String> unreadable) throws Exception {
        String jobDir = ZKPaths.makePath(dir, jobId.value());
        List<String> names = new ArrayList<>(ZooKeeperStores.children(zk, jobDir));
        names.sort(null);
        List<Savepoint> savepoints = new ArrayList<>();
        for (String name : names) {
            String path = ZKPaths.makePath(jobDir, name);
            ZooKeeperGuard.check("read savepoint entry", path);
            byte[] data;
            try {
                data = zk.client().getData().forPath(path);
            } catch (KeeperException.NoNodeException e) {
                continue; // removed meanwhile (beyond the retained ones)
            }
            try {
                savepoints.add(SavepointEntry.fromBytes(data, jobId, name, "znode " + path + " in ZooKeeper "
                        + zk.quorum()));
            } catch (IOException e) {
                unreadable.add(e.getMessage());
            }
        }
        if (!savepoints.isEmpty()) {
            byJob.put(jobId, savepoints);
        }
    }
}
