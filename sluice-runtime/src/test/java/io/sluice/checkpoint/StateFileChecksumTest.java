package io.sluice.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.graph.JobId;
import io.sluice.storage.LocalFileBlobStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32C;
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
        try (InputStream in = storage.streams().open(path, -1)) {
            assertThat(in.readAllBytes()).as("streamed").isEqualTo(legacy);
        }
    }

    @Test
    void theHeaderIsVersion1WheneverTheLengthFitsAnIntAndVersion2Above() {
        ByteBuffer v1 = ByteBuffer.wrap(StateFileFormat.header(Integer.MAX_VALUE, 0x1234));
        assertThat(v1.capacity()).isEqualTo(StateFileFormat.HEADER_BYTES);
        assertThat(v1.getInt()).isEqualTo(StateFileFormat.MAGIC);
        assertThat(v1.getInt()).isEqualTo(1);
        assertThat(v1.getInt()).isEqualTo(Integer.MAX_VALUE);
        assertThat(v1.getInt()).isEqualTo(0x1234);

        long huge = 5_000_000_123L;
        byte[] v2 = StateFileFormat.header(huge, 0x5678);
        assertThat(v2).hasSize(StateFileFormat.HEADER_V2_BYTES);
        assertThat(StateFileFormat.parseHeader(v2, "p"))
                .isEqualTo(new StateFileFormat.Header(2, StateFileFormat.HEADER_V2_BYTES, huge, 0x5678));
        assertThat(StateFileFormat.parseHeader(StateFileFormat.header(7, 9), "p"))
                .isEqualTo(new StateFileFormat.Header(1, StateFileFormat.HEADER_BYTES, 7, 9));
        assertThat(StateFileFormat.encode(new byte[] {1, 2, 3})).as("array files keep version 1")
                .hasSize(StateFileFormat.HEADER_BYTES + 3);
    }

    @Test
    void aVersion2HeaderWithAHugeLengthIsReadWithoutHoldingThePayload() throws IOException {
        long huge = 5_000_000_123L;
        byte[] file = concat(StateFileFormat.header(huge, 0), new byte[] {1, 2, 3});

        InputStream in = StateFileFormat.openPayload(new ByteArrayInputStream(file), "x/1-0.state", huge);
        assertThat(in.readNBytes(3)).containsExactly(1, 2, 3);
        assertThatThrownBy(in::read).isInstanceOf(CorruptStateFileException.class)
                .hasMessageContaining("x/1-0.state")
                .hasMessageContaining("truncated: its header announces 5000000123 bytes of state but it ends after 3");
        assertThatThrownBy(() -> StateFileFormat.openPayload(new ByteArrayInputStream(file), "x/1-0.state", 3))
                .isInstanceOf(CorruptStateFileException.class)
                .hasMessageContaining("announces 5000000123 bytes of state, but the checkpoint expects 3");
        assertThatThrownBy(() -> StateFileFormat.decode(file, "x/1-0.state"))
                .isInstanceOf(CorruptStateFileException.class)
                .hasMessageContaining("announces 5000000123 bytes of state but it holds 3");
    }

    @Test
    void aVersion2FileIsReadAsArrayAndAsStream() throws IOException {
        byte[] payload = {4, 5, 6, 7};
        CRC32C crc = new CRC32C();
        crc.update(payload);
        ByteBuffer v2 = ByteBuffer.allocate(StateFileFormat.HEADER_V2_BYTES).putInt(StateFileFormat.MAGIC).putInt(2)
                .putLong(payload.length).putInt((int) crc.getValue());
        byte[] file = concat(v2.array(), payload);

        assertThat(StateFileFormat.decode(file, "p")).isEqualTo(payload);
        try (InputStream in = StateFileFormat.openPayload(new ByteArrayInputStream(file), "p", 4)) {
            assertThat(in.readAllBytes()).isEqualTo(payload);
        }
        file[file.length - 1] ^= 1;
        try (InputStream in = StateFileFormat.openPayload(new ByteArrayInputStream(file), "p", 4)) {
            assertThatThrownBy(in::readAllBytes).isInstanceOf(CorruptStateFileException.class)
                    .hasMessageContaining("checksum mismatch");
        }
    }

    @Test
    void anUnknownVersionOrATruncatedHeaderIsCorruptWhenOpened() {
        byte[] v3 = ByteBuffer.allocate(20).putInt(StateFileFormat.MAGIC).putInt(3).array();
        assertThatThrownBy(() -> StateFileFormat.openPayload(new ByteArrayInputStream(v3), "p", -1))
                .isInstanceOf(CorruptStateFileException.class).hasMessageContaining("version 3");
        assertThatThrownBy(() -> StateFileFormat.decode(v3, "p"))
                .isInstanceOf(CorruptStateFileException.class).hasMessageContaining("version 3");
        byte[] cut = java.util.Arrays.copyOf(StateFileFormat.header(5_000_000_000L, 1), 15);
        assertThatThrownBy(() -> StateFileFormat.openPayload(new ByteArrayInputStream(cut), "p", -1))
                .isInstanceOf(CorruptStateFileException.class).hasMessageContaining("truncated inside its header");
        assertThatThrownBy(() -> StateFileFormat.openPayload(new ByteArrayInputStream(new byte[] {1, 2}), "p", -1))
                .isInstanceOf(CorruptStateFileException.class).hasMessageContaining("only 2 bytes");
    }

    @Test
    void aStreamedReadDetectsBytesAppendedAfterThePayload() throws IOException {
        byte[] file = concat(StateFileFormat.encode(new byte[] {1, 2, 3}), new byte[] {9});

        try (InputStream in = StateFileFormat.openPayload(new ByteArrayInputStream(file), "p", 3)) {
            assertThatThrownBy(in::readAllBytes).isInstanceOf(CorruptStateFileException.class)
                    .hasMessageContaining("appended to");
            assertThatThrownBy(in::read).as("and stays failed").isInstanceOf(CorruptStateFileException.class);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
