package io.sluice.compare.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code slowfs://} file system as Flink finds it (through its file-system factory service):
 * metadata reads are counted by file name, read latency applies to opens, a stall blocks until
 * released. (Runs in the 1.20 module; the same source is compiled against 1.13 and 1.14.)
 */
class SlowFileSystemTest {

    @BeforeAll
    static void initialize() {
        FileSystem.initialize(new Configuration(), null);
    }

    @AfterEach
    void heal() {
        StorageFaults.heal();
    }

    @Test
    void flinkFindsSlowfsAndCountsOnlyCheckpointMetadataAsMetadataReads(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("completedCheckpoint0123abc"), "pointer");
        Files.createDirectories(dir.resolve("chk-7"));
        Files.writeString(dir.resolve("chk-7/_metadata"), "metadata");
        Files.writeString(dir.resolve("chk-7/state-file"), "state");
        org.apache.flink.core.fs.Path base = new org.apache.flink.core.fs.Path("slowfs://" + dir);
        FileSystem fs = base.getFileSystem();
        assertThat(fs).isInstanceOf(SlowFileSystem.class);

        long reads0 = StorageFaults.metadataReads();
        long opens0 = StorageFaults.opens();
        for (String name : new String[] {"completedCheckpoint0123abc", "chk-7/_metadata", "chk-7/state-file"}) {
            try (FSDataInputStream in = fs.open(new org.apache.flink.core.fs.Path(base, name))) {
                assertThat(in.read()).isPositive();
            }
        }
        assertThat(StorageFaults.metadataReads() - reads0).isEqualTo(2);
        assertThat(StorageFaults.opens() - opens0).isEqualTo(3);
    }

    @Test
    void aStallBlocksEveryOperationUntilReleased(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("f"), "x");
        org.apache.flink.core.fs.Path file = new org.apache.flink.core.fs.Path("slowfs://" + dir.resolve("f"));
        FileSystem fs = file.getFileSystem();
        StorageFaults.stall();
        CompletableFuture<Boolean> exists = CompletableFuture.supplyAsync(() -> {
            try {
                return fs.exists(file);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> StorageFaults.blocked() == 1);
        assertThat(exists).isNotDone();
        StorageFaults.release();
        assertThat(exists.get()).isTrue();
        assertThat(StorageFaults.blocked()).isZero();
    }
}
