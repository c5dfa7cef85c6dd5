package io.sluice.ha.zookeeper;

import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/** Write helpers shared by the stores: transactions through {@link ZooKeeperHaServices#commit}. Stateless. */
final class ZooKeeperStores {
    private static final int MAX_ATTEMPTS = 10;

    private ZooKeeperStores() {}

    /** Children of {@code dir}, or none if it does not exist. Blocking. */
    static List<String> children(ZooKeeperHaServices zk, String dir) throws Exception {
        ZooKeeperGuard.check("list", dir);
        try {
            return zk.client().getChildren().forPath(dir);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /**
     * Creates {@code path} with {@code data}, or overwrites it at the version just read if it
     * exists; retried on concurrent modification (NodeExists, BadVersion, NoNode). Blocking.
     */
    static void createOrReplace(ZooKeeperHaServices zk, String dir, String path, byte[] data, String what)
            throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                zk.commit(what, List.of(zk.client().transactionOp().create().forPath(path, data)));
                return;
            } catch (KeeperException.NodeExistsException e) {
                // fall through to overwrite
            } catch (KeeperException.NoNodeException e) {
                // The parent is missing (created only after the fenced attempt, so a rejected writer leaves nothing).
                if (attempt >= MAX_ATTEMPTS) {
                    throw e;
                }
                zk.ensurePath(dir);
                continue;
            }
            try {
                ZooKeeperGuard.check("read version", path);
                Stat stat = zk.client().checkExists().forPath(path);
                if (stat == null) {
                    continue;
                }
                zk.commit(what, List.of(zk.client().transactionOp().setData().withVersion(stat.getVersion())
                        .forPath(path, data)));
                return;
            } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /**
     * Creates {@code path} with {@code data} unless it exists (one transaction, fenced if a fence is
     * active); creates the parent {@code dir} if it is missing and tries again. Returns false, having
     * written nothing, if the node exists. Blocking.
     */
    static boolean createIfAbsent(ZooKeeperHaServices zk, String dir, String path, byte[] data, String what)
            throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                zk.commit(what, List.of(zk.client().transactionOp().create().forPath(path, data)));
                return true;
            } catch (KeeperException.NodeExistsException e) {
                return false;
            } catch (KeeperException.NoNodeException e) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw e;
                }
                zk.ensurePath(dir);
            }
        }
    }

    /** Deletes {@code path} if it exists; idempotent. Blocking. */
    static void deleteIfExists(ZooKeeperHaServices zk, String path, String what) throws Exception {
        try {
            zk.commit(what, List.of(zk.client().transactionOp().delete().forPath(path)));
        } catch (KeeperException.NoNodeException e) {
            // idempotent
        }
    }
}
