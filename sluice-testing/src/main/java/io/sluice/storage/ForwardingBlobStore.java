package io.sluice.storage;

import java.io.InputStream;
import java.util.List;

/**
 * A {@link BlobStore} that hands every call to a delegate, for test decorators that change or record
 * one or two operations and override only those. The streaming methods {@link #put(String, BlobContent)}
 * and {@link #openRead(String)} are forwarded as such (not through {@link #put(String, byte[])} or
 * {@link #get(String)}), and so is a copy on the server ({@link #copyObject}): a decorator that watches writes or
 * reads of state files must override them too.
 * Threading: as thread-safe as the delegate.
 */
public abstract class ForwardingBlobStore implements BlobStore {
    protected final BlobStore delegate;

    protected ForwardingBlobStore(BlobStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public void put(String path, byte[] data) {
        delegate.put(path, data);
    }

    @Override
    public void put(String path, BlobContent content) {
        delegate.put(path, content);
    }

    @Override
    public byte[] get(String path) {
        return delegate.get(path);
    }

    @Override
    public InputStream openRead(String path) {
        return delegate.openRead(path);
    }

    @Override
    public java.util.Optional<java.nio.file.Path> localFile(String path) {
        return delegate.localFile(path);
    }

    @Override
    public java.util.Optional<ObjectAddress> objectAddress(String path) {
        return delegate.objectAddress(path);
    }

    @Override
    public long copyObject(ObjectAddress source, String path) {
        return delegate.copyObject(source, path);
    }

    @Override
    public boolean exists(String path) {
        return delegate.exists(path);
    }

    @Override
    public List<String> list(String prefix) {
        return delegate.list(prefix);
    }

    @Override
    public void delete(String path) {
        delegate.delete(path);
    }

    @Override
    public void deleteRecursively(String prefix) {
        delegate.deleteRecursively(prefix);
    }

    @Override
    public int discardUnfinishedWrites(String prefix, java.util.function.Predicate<String> which) {
        return delegate.discardUnfinishedWrites(prefix, which);
    }

    @Override
    public String describe() {
        return delegate.describe();
    }
}
