package io.sluice.storage;

/** {@link BlobStore#get(String)} found no complete blob at the requested path. */
public class BlobNotFoundException extends StorageException {

    public BlobNotFoundException(String message) {
        super(message);
    }

    public BlobNotFoundException(String message, Throwable cause) {
        super(message, cause);
    }
}
