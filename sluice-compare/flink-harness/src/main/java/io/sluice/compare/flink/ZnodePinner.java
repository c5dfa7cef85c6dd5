package io.sluice.compare.flink;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.CreateMode;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.KeeperException;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.Watcher;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.ZooDefs;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.ZooKeeper;

/**
 * A second, live ZooKeeper session that holds a lock on checkpoint znodes, as a previous leader's
 * session does until it expires: Flink cannot delete a checkpoint znode that another session has
 * locked, so once those checkpoints are subsumed, ZooKeeper holds checkpoints that the job
 * manager's memory no longer has. Flink's lock is an ephemeral child of the checkpoint znode (1.13,
 * 1.14) or of its {@code locks} child (1.20); the pinner creates the same.
 */
final class ZnodePinner implements AutoCloseable {
    private final ZooKeeper zk;
    private final String owner = "pinned-by-harness-" + UUID.randomUUID();

    ZnodePinner(String connectString) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        zk = new ZooKeeper(connectString, 60_000, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("Could not connect to ZooKeeper at " + connectString + " within 30 s");
        }
    }

    /** Pins every checkpoint znode now in ZooKeeper; returns how many. */
    int pinAllCheckpoints() throws Exception {
        List<String> checkpoints = new ArrayList<>();
        find("/", checkpoints);
        int pinned = 0;
        for (String cp : checkpoints) {
            String parent = zk.exists(cp + "/locks", false) != null ? cp + "/locks" : cp;
            try {
                zk.create(parent + "/" + owner, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                pinned++;
            } catch (KeeperException.NoNodeException | KeeperException.NodeExistsException e) {
                // subsumed meanwhile, or pinned already
            }
        }
        return pinned;
    }

    /** Collects znodes with a numeric name under a parent path containing "checkpoints" (not the id counter). */
    private void find(String path, List<String> out) throws Exception {
        List<String> children;
        try {
            children = zk.getChildren(path, false);
        } catch (KeeperException.NoNodeException e) {
            return;
        }
        for (String child : children) {
            String p = path.equals("/") ? "/" + child : path + "/" + child;
            if (child.equals("zookeeper") || child.equals("locks") || child.startsWith("pinned-by-harness")) {
                continue;
            }
            if (child.matches("\\d{10,}") && path.contains("checkpoints") && !path.contains("checkpoint-counter")
                    && !path.contains("checkpoint_id_counter")) {
                out.add(p);
            } else {
                find(p, out);
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        zk.close();
    }
}
