package io.sluice.state.rocksdb;

import io.sluice.state.CheckpointFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

/**
 * Checkpoint storage on a local directory for the RocksDB backend's tests, recording what is uploaded: shared files
 * under {@code shared/}, private ones under {@code private/}, each under a unique name. Thread-safe: a snapshot
 * uploads several files at a time ({@link FileTransfers}).
 */
class LocalCheckpointFiles implements CheckpointFiles {
    final List<String> sharedUploads = Collections.synchronizedList(new ArrayList<>());
    final List<String> privateUploads = Collections.synchronizedList(new ArrayList<>());
    volatile long uploadedBytes;
    private final Path root;

    /** @param root where the uploaded files go */
    LocalCheckpointFiles(Path root) {
        this.root = root;
    }

    @Override
    public String uploadShared(Path file, String localName) {
        sharedUploads.add(localName);
        return copy(file, "shared/" + UUID.randomUUID() + "-" + localName);
    }

    @Override
    public String uploadPrivate(Path file, String localName) {
        privateUploads.add(localName);
        return copy(file, "private/" + UUID.randomUUID() + "-" + localName);
    }

    private String copy(Path file, String path) {
        try {
            Path target = root.resolve(path);
            Files.createDirectories(target.getParent());
            Files.copy(file, target);
            long size = Files.size(file);
            synchronized (this) {
                uploadedBytes += size;
            }
            return path;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void download(String path, Path target) {
        try {
            Files.copy(root.resolve(path), target);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The stored file at {@code path} (an upload's path). */
    Path stored(String path) {
        return root.resolve(path);
    }
}
