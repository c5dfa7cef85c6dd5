package io.sluice.state.rocksdb;

import io.sluice.state.CheckpointFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole RocksDB instance of a changelog checkpoint ({@link RocksDbChangelog}), flushed into a RocksDB checkpoint
 * when it was taken, kept as task-local files only ({@link CheckpointFiles#keepLocal}): never uploaded, so it costs a
 * flush and hard links, no bytes to storage. A restore of that checkpoint on the same task executor opens it as it is
 * instead of opening the last materialisation and replaying the segments since, so a task failover does not grow
 * with the change since the last materialisation. A listing of its files and their sizes is kept with them; a restore
 * that misses any of them (or finds another size) replays instead.
 *
 * <p>Threading: {@link #keep} on the thread that uploads the checkpoint; {@link #restore} on the task thread, while
 * restoring.
 */
final class LocalInstance {
    static final String LISTING = "local-instance";
    static final String FILE_PREFIX = "local-instance/";

    private static final Logger LOG = LoggerFactory.getLogger(LocalInstance.class);

    private LocalInstance() {
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a leftover in the snapshots directory, which goes with the backend
        }
    }

    /**
     * Keeps the files of the RocksDB checkpoint at {@code directory} through {@code files}, then their listing. A file
     * that cannot be read leaves the instance without a listing (a restore replays) and is logged; the checkpoint
     * goes on.
     */
    static void keep(Path directory, CheckpointFiles files) {
        Path listingFile = directory.resolveSibling(directory.getFileName() + ".files");
        try {
            List<Path> all;
            try (Stream<Path> list = Files.list(directory)) {
                all = list.filter(Files::isRegularFile).sorted().toList();
            }
            StringBuilder listing = new StringBuilder();
            for (Path file : all) {
                String name = file.getFileName().toString();
                if (!files.keepLocal(FILE_PREFIX + name, file)) {
                    return; // this task keeps no local copies
                }
                listing.append(name).append(' ').append(Files.size(file)).append('\n');
            }
            Files.writeString(listingFile, listing, StandardCharsets.UTF_8);
            files.keepLocal(LISTING, listingFile);
        } catch (IOException e) {
            LOG.warn("Could not keep the task-local instance {}: a restore of its checkpoint here replays the"
                    + " changelog instead: {}", directory, e.toString());
        } finally {
            deleteQuietly(listingFile);
        }
    }

    /**
     * Puts the kept instance of the checkpoint being restored at {@code target} (a new directory: table files as hard
     * links, the others as copies, since RocksDB rewrites them once open) and returns {@code true}; or returns
     * {@code false} with nothing at {@code target}: none kept here, or a file of it missing or of another size.
     */
    static boolean restore(CheckpointFiles files, Path target) {
        Path listingFile = target.resolveSibling(target.getFileName() + ".files");
        try {
            if (!files.restoreLocal(LISTING, listingFile, false)) {
                return false;
            }
            List<String> lines = new ArrayList<>(Files.readAllLines(listingFile, StandardCharsets.UTF_8));
            Files.createDirectories(target);
            for (String line : lines) {
                int space = line.lastIndexOf(' ');
                String name = line.substring(0, space);
                long size = Long.parseLong(line.substring(space + 1));
                Path file = target.resolve(name);
                if (!files.restoreLocal(FILE_PREFIX + name, file, name.endsWith(".sst")) || Files.size(file) != size) {
                    RocksDbInstance.deleteDirectory(target);
                    LOG.warn("The task-local instance of the checkpoint being restored has no file {} of {} bytes:"
                            + " replaying the changelog instead", name, size);
                    return false;
                }
            }
            return true;
        } catch (IOException | RuntimeException e) {
            RocksDbInstance.deleteDirectory(target);
            LOG.warn("Not opening the task-local instance of the checkpoint being restored ({}): replaying the"
                    + " changelog instead", e.toString());
            return false;
        } finally {
            deleteQuietly(listingFile);
        }
    }
}
