package io.sluice.ha.zookeeper;

import io.sluice.ha.LeaderSettingsStore;
import io.sluice.rpc.MainThreads;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.zookeeper.KeeperException;

/**
 * The {@link LeaderSettingsStore} of the ZooKeeper HA services: one znode {@code <base>/leader-settings}
 * holding the publishing leader's contender id and its shared settings as {@code key=value} lines
 * (UTF-8; the first line {@code leader=<contender id>}). Replaced, not fenced: {@link #read} returns
 * the record only while its publisher leads the dispatcher latch (read from ZooKeeper, not from a
 * cache), so a stale write, or the record of a cluster whose job managers all stopped, changes nothing.
 *
 * <p>Threading: thread-safe; blocking, never on a component main thread.
 */
final class ZooKeeperLeaderSettingsStore implements LeaderSettingsStore {
    private static final String LEADER = "leader=";

    private final ZooKeeperHaServices zk;
    private final String dir;
    private final String path;

    ZooKeeperLeaderSettingsStore(ZooKeeperHaServices zk, String dir, String path) {
        this.zk = zk;
        this.dir = dir;
        this.path = path;
    }

    @Override
    public void publish(String contenderId, Map<String, String> settings) throws IOException {
        MainThreads.checkNotMainThread("publish the leader's settings");
        StringBuilder record = new StringBuilder(LEADER).append(contenderId).append('\n');
        settings.forEach((k, v) -> record.append(k).append('=').append(v.replace('\n', ' ')).append('\n'));
        try {
            ZooKeeperStores.createOrReplace(zk, dir, path, record.toString().getBytes(StandardCharsets.UTF_8),
                    "publish the leader's settings");
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("Could not publish the leader's settings at " + path + " in ZooKeeper " + zk.quorum()
                    + " (" + e + ")", e);
        }
    }

    @Override
    public Optional<Published> read() throws IOException {
        MainThreads.checkNotMainThread("read the leader's settings");
        ZooKeeperGuard.check("read the leader's settings", path);
        byte[] data;
        try {
            data = zk.client().getData().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw new IOException("Could not read the leader's settings at " + path + " in ZooKeeper " + zk.quorum()
                    + " (" + e + ")", e);
        }
        String leader = null;
        Map<String, String> settings = new LinkedHashMap<>();
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith(LEADER)) {
                leader = line.substring(LEADER.length());
            } else if (line.indexOf('=') > 0) {
                settings.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
            }
        }
        if (leader == null) {
            return Optional.empty();
        }
        Optional<String> leading;
        try {
            leading = ZooKeeperLeaderRetrieval.readLeader(zk, zk.dispatcherLeaderPath(), null);
        } catch (Exception e) {
            throw new IOException("Could not read the dispatcher leader at " + zk.dispatcherLeaderPath() + " in ZooKeeper "
                    + zk.quorum() + " (" + e + ")", e);
        }
        return leading.filter(leader::equals).isPresent() ? Optional.of(new Published(leader, settings)) : Optional.empty();
    }
}
