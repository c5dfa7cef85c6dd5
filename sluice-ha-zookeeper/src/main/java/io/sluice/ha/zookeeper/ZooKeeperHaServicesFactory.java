package io.sluice.ha.zookeeper;

import io.sluice.config.Configuration;
import io.sluice.config.ConfigOptions;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.HighAvailabilityServicesFactory;
import io.sluice.storage.BlobStore;
import io.sluice.storage.BlobStores;
import io.sluice.storage.StorageException;

/**
 * Creates {@link ZooKeeperHaServices} from {@link ZooKeeperHaOptions}; selected by
 * {@code high-availability.type: zookeeper}. Stateless; blocking (connects, up to the connection
 * timeout).
 */
public final class ZooKeeperHaServicesFactory implements HighAvailabilityServicesFactory {
    @Override
    public HighAvailabilityServices create(Configuration configuration) throws Exception {
        configuration.validate(ConfigOptions.declaredIn(ZooKeeperHaOptions.class));
        String quorum = configuration.get(ZooKeeperHaOptions.QUORUM).trim();
        if (quorum.isEmpty()) {
            throw new IllegalConfigurationException(ZooKeeperHaOptions.QUORUM.key() + " is not set; the ZooKeeper high"
                    + "-availability services need the ZooKeeper connect string, for example"
                    + " 'zk1:2181,zk2:2181,zk3:2181'.");
        }
        return new ZooKeeperHaServices(quorum,
                configuration.get(ZooKeeperHaOptions.ROOT),
                configuration.get(ZooKeeperHaOptions.CLUSTER_ID),
                configuration.get(ZooKeeperHaOptions.SESSION_TIMEOUT),
                configuration.get(ZooKeeperHaOptions.CONNECTION_TIMEOUT),
                configuration.get(ZooKeeperHaOptions.RETRY_BASE_SLEEP),
                configuration.get(ZooKeeperHaOptions.RETRY_MAX_RETRIES),
                configuration.get(ZooKeeperHaOptions.SUSPENDED_TOLERANCE),
                jarStorage(configuration));
    }

    /** The shared storage of job jars, or null if {@code high-availability.storage-dir} is not set. Opening does no I/O. */
    private static BlobStore jarStorage(Configuration configuration) {
        String location = configuration.get(ZooKeeperHaOptions.STORAGE_DIR).trim();
        if (location.isEmpty()) {
            return null;
        }
        try {
            return BlobStores.open(location, configuration, StorageException.HA_STORAGE);
        } catch (IllegalArgumentException e) {
            throw new IllegalConfigurationException(ZooKeeperHaOptions.STORAGE_DIR.key() + ": " + e.getMessage());
        }
    }
}
