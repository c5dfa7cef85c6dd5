package io.sluice.storage;

import io.sluice.config.Configuration;

/**
 * Service provider interface for blob stores of other location schemes than {@code file}, such as
 * {@code s3://bucket/prefix} (module {@code sluice-storage-s3}). Implementations are discovered by
 * {@link BlobStores} with {@link java.util.ServiceLoader}: list the implementation's class name in
 * {@code META-INF/services/io.sluice.storage.BlobStoreFactory} and put its module on the class path.
 * They need a public no-argument constructor.
 *
 * <p>Threading: implementations are thread-safe. {@link #open} must not do I/O (no connection, no
 * probe request): it may be called from a component main thread; the store's own methods block.
 */
public interface BlobStoreFactory {

    /** Whether this factory opens locations of {@code scheme} (lower case, without {@code ':'}), e.g. {@code "s3"}. */
    boolean supports(String scheme);

    /**
     * Opens the store for {@code location} (for example {@code s3://bucket/prefix}) with the settings
     * in {@code configuration} (never {@code null}; empty means defaults). Throws
     * {@link IllegalArgumentException} (or {@link io.sluice.config.IllegalConfigurationException})
     * naming the location or the key and value if they are invalid. Does no I/O.
     */
    BlobStore open(String location, Configuration configuration);

    /**
     * Like {@link #open(String, Configuration)}, for a store in the given role (what it is for, named
     * in its error messages, see {@link BlobStore#role()}). The default ignores the role, so the store
     * speaks of itself as {@link StorageException#CHECKPOINT_STORAGE}; factories override it.
     */
    default BlobStore open(String location, Configuration configuration, String role) {
        return open(location, configuration);
    }
}
