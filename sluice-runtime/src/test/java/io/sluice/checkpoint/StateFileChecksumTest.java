package io.sluice.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.graph.JobId;
import io.sluice.storage.LocalFileBlobStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** State files carry a CRC32C ({@link StateFileFormat}): corruption is detected and named, old files still read. */
class StateFileChecksumTest {
    @TempDir
    Path root;

    private final JobId job = JobId.of("1a2b3c4d5e6f708192a3b4c5d6e7f809");
    private CheckpointStorage storage;

    @BeforeEach
    void setUp() {
        storage = new CheckpointStorage(new LocalFileBlobStore(root), new SimpleMeterRegistry());
    }

    @Test
    void everyFlippedBitOfAStateFileIsDetectedAndNamesTheFile() throws IOException {
        byte[] data = new byte[300];
        new Random(7).nextBytes(data);
        String path = storage.writeTaskState(job, 9, 2, 1, data);
        byte[] file = Files.readAllBytes(root.resolve(path));
        assertThat(file).hasSize(data.length + StateFileFormat.HEADER_BYTES);
        for (int bit = 0; bit < file.length * 8; bit++) {
            byte[] copy = file.clone();
            copy[bit / 8] ^= (byte) (1 << (bit % 8));
            Files.write(root.resolve(path), copy);
            int flipped = bit;
            assertThatThrownBy(() -> storage.readTaskState(path)).as("bit %d", flipped)
                    .isInstanceOf(CorruptStateFileException.class)
                    .hasMessageContaining(path);
        }
    }

    @Test
    void garbageIsCorruptNotAStateFile() throws IOException {
        String path = storage.writeTaskState(job, 9, 2, 1, new byte[] {1, 2, 3});
        Files.write(root.resolve(path), "this is not a state file, it is garbage".getBytes());

        assertThatThrownBy(() -> storage.readTaskState(path))
                .isInstanceOf(CorruptStateFileException.class)
                .hasMessageContaining("State file " + path + " is corrupt")
                .hasMessageContaining("marker");
    }

    @Test
    void aChecksumMismatchIsNamedSo() throws IOException {
        String path = storage.writeTaskState(job, 9, 2, 1, new byte[100]);
        byte[] file = Files.readAllBytes(root.resolve(path));
        file[50] ^= 1;
        Files.write(root.resolve(path), file);

        assertThatThrownBy(() -> storage.readTaskState(path)).isInstanceOf(CorruptStateFileException.class)
                .hasMessageContaining("checksum mismatch");
    }

    @Test
    void aTruncatedStateFileIsDetected() throws IOException {
        String path = storage.writeTaskState(job, 9, 2, 1, new byte[100]);
        byte[] file = Files.readAllBytes(root.resolve(path));
        Files.write(root.resolve(path), java.util.Arrays.copyOf(file, 60));

        assertThatThrownBy(() -> storage.readTaskState(path)).isInstanceOf(CorruptStateFileException.class)
                .hasMessageContaining("truncated");
    }

    /** {@code state-file-v0.state}: a state file as the build before checksums wrote it (the bare snapshot). */
    @Test
    void aStateFileWithoutChecksumFromTheEarlierFormatIsStillRead() throws IOException {
        byte[] legacy;
        try (InputStream in = getClass().getResourceAsStream("/checkpoint/state-file-v0.state")) {
            legacy = in.readAllBytes();
        }
        String path = job + "/chk-3/1-0.state";
        Files.createDirectories(root.resolve(path).getParent());
        Files.write(root.resolve(path), legacy);

        assertThat(storage.readTaskState(path)).isEqualTo(legacy);
    }
}
