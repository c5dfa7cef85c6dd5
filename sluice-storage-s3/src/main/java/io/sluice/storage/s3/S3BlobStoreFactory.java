package io.sluice.storage.s3;

import io.sluice.config.Configuration;
import io.sluice.storage.BlobStore;
import io.sluice.storage.BlobStoreFactory;

/**
 * Opens {@code s3://bucket/prefix} locations as {@link S3BlobStore}s. Registered in
 * {@code META-INF/services/io.sluice.storage.BlobStoreFactory}, so that
 * {@link io.sluice.storage.BlobStores#open(String, Configuration)} finds it whenever this module is on
 * the class path. The {@code s3.*} options come from the configuration given to {@code BlobStores}
 * (from {@code LocalCluster.builder().configuration(...)}), then from system properties
 * {@code sluice.s3.*} (see {@link S3Options}). Stateless and thread-safe; opening does no I/O.
 */
public final class S3BlobStoreFactory implements BlobStoreFactory {

    @Override
    public boolean supports(String scheme) {
        return "s3".equals(scheme);
    }

    @Override
    public BlobStore open(String location, Configuration configuration) {
        return new S3BlobStore(location, configuration);
    }

    @Override
    public BlobStore open(String location, Configuration configuration, String role) {
        return new S3BlobStore(location, configuration, role);
    }
}
