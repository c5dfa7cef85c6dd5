package io.sluice.storage;

import java.util.Objects;

/**
 * Where a blob lives in an object store that copies between its objects on the server ({@link BlobStore#objectAddress},
 * {@link BlobStore#copyObject}): the service, as the store names it (two stores copy between each other only when
 * they name the same service, for example the same S3 endpoint, region and credentials), the bucket and the key.
 * Immutable; any thread.
 *
 * @param service an opaque name of the service and the identity that reaches it; never a secret
 * @param bucket  the bucket (or container) of the object
 * @param key     the object's key in it
 */
public record ObjectAddress(String service, String bucket, String key) {
    public ObjectAddress {
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(key, "key");
    }

    @Override
    public String toString() {
        return bucket + "/" + key + " (" + service + ")";
    }
}
