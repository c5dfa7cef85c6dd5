package io.sluice.compare.flink;

import java.io.IOException;
import java.net.URI;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.local.LocalFileSystem;

/**
 * Flink's local file system under the scheme {@code slowfs://}, with the faults of
 * {@link StorageFaults} applied: every operation waits while storage is stalled; every open for
 * reading is counted and delayed by the read latency. Plugged into Flink through its
 * {@code FileSystemFactory} service ({@link SlowFileSystemFactory}), as a real storage plugin is.
 *
 * <p>Thread-safe: Flink calls it from many threads.
 */
public final class SlowFileSystem extends LocalFileSystem {
    static final String SCHEME = "slowfs";

    @Override
    public URI getUri() {
        return URI.create(SCHEME + ":///");
    }

    @Override
    public FSDataInputStream open(Path f, int bufferSize) throws IOException {
        StorageFaults.onOpen(f.getPath());
        return super.open(f, bufferSize);
    }

    @Override
    public FSDataInputStream open(Path f) throws IOException {
        StorageFaults.onOpen(f.getPath());
        return super.open(f);
    }

    @Override
    public FSDataOutputStream create(Path filePath, WriteMode overwrite) throws IOException {
        StorageFaults.gate("create", filePath.getPath());
        return super.create(filePath, overwrite);
    }

    @Override
    public FileStatus getFileStatus(Path f) throws IOException {
        StorageFaults.gate("stat", f.getPath());
        return super.getFileStatus(f);
    }

    @Override
    public boolean exists(Path f) throws IOException {
        StorageFaults.gate("exists", f.getPath()); // LocalFileSystem answers exists() without getFileStatus()
        return super.exists(f);
    }

    @Override
    public FileStatus[] listStatus(Path f) throws IOException {
        StorageFaults.gate("list", f.getPath());
        return super.listStatus(f);
    }

    @Override
    public boolean delete(Path f, boolean recursive) throws IOException {
        StorageFaults.gate("delete", f.getPath());
        return super.delete(f, recursive);
    }

    @Override
    public boolean mkdirs(Path f) throws IOException {
        StorageFaults.gate("mkdirs", f.getPath());
        return super.mkdirs(f);
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        StorageFaults.gate("rename", src.getPath());
        return super.rename(src, dst);
    }
}
