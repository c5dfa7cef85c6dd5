package io.sluice.compare.flink;

import java.net.URI;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.FileSystemFactory;

/** Registers {@link SlowFileSystem} for {@code slowfs://} (found by Flink through META-INF/services). */
public final class SlowFileSystemFactory implements FileSystemFactory {
    private static final SlowFileSystem INSTANCE = new SlowFileSystem();

    @Override
    public String getScheme() {
        return SlowFileSystem.SCHEME;
    }

    @Override
    public FileSystem create(URI fsUri) {
        return INSTANCE;
    }
}
