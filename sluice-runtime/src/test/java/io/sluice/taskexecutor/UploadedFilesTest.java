package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.storage.BlobStore;
import io.sluice.storage.ForwardingBlobStore;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.storage.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files of one failed upload: all deleted, the first failing delete ends it, the interrupt kept, one thread. */
class UploadedFilesTest {
    @TempDir
    Path root;

    private final List<String> deletes = new ArrayList<>();

    @Test
    void everyFileWrittenIsDeletedAndACancelsInterruptIsKept() throws Exception {
        CheckpointStorage storage = storage(null);
        UploadedFiles written = new UploadedFiles();
        List<Path> files = write(storage, written, 3);

        Thread.currentThread().interrupt(); // as a cancel leaves it
        int deleted = written.deleteAfterFailure(storage, "Count (1/1)", 4);

        assertThat(Thread.interrupted()).as("the interrupt is back").isTrue();
        assertThat(deleted).isEqualTo(3);
        assertThat(files).allSatisfy(f -> assertThat(f).doesNotExist());
        assertThat(written.paths()).isEmpty();
        assertThat(written.deleteAfterFailure(storage, "Count (1/1)", 4)).as("nothing left to delete").isZero();
    }

    @Test
    void theFirstDeleteThatFailsEndsItAndTheRestStays() throws Exception {
        UploadedFiles written = new UploadedFiles();
        List<Path> files = write(storage(null), written, 3);
        String refused = written.paths().get(1);

        int deleted = written.deleteAfterFailure(storage(refused), "Count (1/1)", 4);

        assertThat(deleted).isEqualTo(1);
        assertThat(deletes).as("no delete after the refused one").hasSize(2);
        assertThat(files.get(0)).doesNotExist();
        assertThat(files.get(1)).exists();
        assertThat(files.get(2)).exists();
    }

    @Test
    void helpersOfTheUploadMayAddButOnlyTheUploadsThreadReadsAndDeletes() throws Exception {
        UploadedFiles written = new UploadedFiles();

        CompletableFuture.runAsync(() -> written.add("a/shared/1.sst")).get(10, TimeUnit.SECONDS);
        Throwable offThread = CompletableFuture.runAsync(written::paths)
                .handle((ok, error) -> error).get(10, TimeUnit.SECONDS);

        assertThat(offThread).hasRootCauseInstanceOf(IllegalStateException.class)
                .rootCause().hasMessageContaining("belong to its thread");
        assertThat(written.paths()).containsExactly("a/shared/1.sst");
    }

    private List<Path> write(CheckpointStorage storage, UploadedFiles written, int count) throws Exception {
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Path local = Files.writeString(root.resolve("local-" + i + ".sst"), "table " + i);
            String path = written.add(storage.writeSharedFile(io.sluice.graph.JobId.generate(), 7, 2, 0, i + ".sst", local));
            Files.delete(local);
            files.add(root.resolve(path));
        }
        return files;
    }

    /** Storage in {@link #root} that refuses to delete {@code refused} ({@code null}: none), counting deletes. */
    private CheckpointStorage storage(String refused) {
        BlobStore store = new ForwardingBlobStore(new LocalFileBlobStore(root)) {
            @Override
            public void delete(String path) {
                deletes.add(path);
                if (path.equals(refused)) {
                    throw new StorageException("Checkpoint storage refused to delete " + path + " (Access Denied)");
                }
                super.delete(path);
            }
        };
        return new CheckpointStorage(store, new SimpleMeterRegistry());
    }
}
