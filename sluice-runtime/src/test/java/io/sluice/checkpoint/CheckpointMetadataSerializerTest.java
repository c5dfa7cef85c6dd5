package io.sluice.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.graph.JobId;
import io.sluice.state.KeyGroupRange;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckpointMetadataSerializerTest {
    private static final String PATH = "0123456789abcdef0123456789abcdef/chk-7/_metadata";
    /** Where the golden version-1 metadata (checkpoint 42) was written. */
    private static final String GOLDEN_PATH = "0123456789abcdef0123456789abcdef/chk-42/_metadata";

    private final CheckpointMetadataSerializer serializer = new CheckpointMetadataSerializer();

    static CompletedCheckpoint sample(JobId jobId, long id) {
        return new CompletedCheckpoint(jobId, id, 1_700_000_000_000L, 1_700_000_000_250L, List.of(
                new TaskStateHandle(1, 0, jobId + "/chk-" + id + "/1-0.state", 1234, new byte[] {9, 8, 7},
                        KeyGroupRange.of(0, 63)),
                new TaskStateHandle(1, 1, null, 0, null, null),
                new TaskStateHandle(2, 3, jobId + "/chk-" + id + "/2-3.state", 0, new byte[0], KeyGroupRange.of(64, 127))),
                null);
    }

    @Test
    void roundTripPreservesEverythingAndSetsThePathReadFrom() {
        CompletedCheckpoint cp = sample(JobId.of("0123456789abcdef0123456789abcdef"), 7);

        CompletedCheckpoint back = serializer.deserialize(serializer.serialize(cp), PATH);

        assertThat(back).isEqualTo(cp.withMetadataPath(PATH));
        assertThat(back.stateOf(1, 1).sourcePosition()).isNull();
        assertThat(back.stateOf(2, 3).sourcePosition()).isEmpty();
    }

    @Test
    void operatorStateIsWrittenAsVersion3AndOnlyThen() {
        JobId job = JobId.of("0123456789abcdef0123456789abcdef");
        CompletedCheckpoint plain = sample(job, 7);
        assertThat(java.nio.ByteBuffer.wrap(serializer.serialize(plain)).getInt(4)).isEqualTo(1);

        CompletedCheckpoint withCommittables = new CompletedCheckpoint(job, 8, 1, 2, List.of(
                new TaskStateHandle(3, 0, null, 0, null, null).withOperatorState(new byte[] {1, 2, 3}, null),
                new TaskStateHandle(3, 1, null, 0, null, null).withOperatorState(null, job + "/chk-8/3-1.opstate"),
                TaskStateHandle.inline(1, 0, new byte[] {5}, new byte[] {6}, KeyGroupRange.of(0, 127))), null);
        byte[] data = serializer.serialize(withCommittables);
        assertThat(java.nio.ByteBuffer.wrap(data).getInt(4)).isEqualTo(3);
        // Read from its own directory (files are relative to the directory the metadata is read from).
        String path = job + "/chk-8/_metadata";
        CompletedCheckpoint back = serializer.deserialize(data, path);
        assertThat(back).isEqualTo(withCommittables.withMetadataPath(path));
        assertThat(serializer.deserialize(data, "copy/chk-8/_metadata").stateOf(3, 1).operatorStateFile())
                .as("an operator state file moves with its checkpoint's directory").isEqualTo("copy/chk-8/3-1.opstate");
        assertThat(back.stateOf(3, 0).operatorState()).containsExactly(1, 2, 3);
        assertThat(back.stateOf(3, 1).operatorStateFile()).endsWith("3-1.opstate");
        assertThat(back.stateOf(1, 0).hasOperatorState()).isFalse();
    }

    @Test
    void roundTripOfACheckpointWithoutTasks() {
        CompletedCheckpoint cp = new CompletedCheckpoint(JobId.generate(), 0, 1, 2, List.of(), null);

        assertThat(serializer.deserialize(serializer.serialize(cp), PATH)).isEqualTo(cp.withMetadataPath(PATH));
    }

    @Test
    void everySingleFlippedByteIsDetected() {
        byte[] data = serializer.serialize(sample(JobId.generate(), 3));
        for (int i = 0; i < data.length; i++) {
            byte[] copy = data.clone();
            copy[i] ^= 0x10;
            assertThatThrownBy(() -> serializer.deserialize(copy, PATH))
                    .as("flipped byte %d", i)
                    .isInstanceOf(CorruptCheckpointException.class)
                    .hasMessageContaining(PATH);
        }
    }

    @Test
    void flippedBodyByteIsAChecksumMismatch() {
        byte[] data = serializer.serialize(sample(JobId.generate(), 3));
        data[data.length / 2] ^= 0x01;

        assertThatThrownBy(() -> serializer.deserialize(data, PATH))
                .isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining(PATH)
                .hasMessageContaining("checksum mismatch");
    }

    @Test
    void everyTruncationIsDetected() {
        byte[] data = serializer.serialize(sample(JobId.generate(), 3));
        for (int len = 0; len < data.length; len++) {
            byte[] cut = Arrays.copyOf(data, len);
            assertThatThrownBy(() -> serializer.deserialize(cut, PATH))
                    .as("truncated to %d bytes", len)
                    .isInstanceOf(CorruptCheckpointException.class)
                    .hasMessageContaining(PATH)
                    .hasMessageContaining("truncated");
        }
    }

    @Test
    void badMagicIsReported() {
        byte[] data = serializer.serialize(sample(JobId.generate(), 3));
        data[0] = 'X';

        assertThatThrownBy(() -> serializer.deserialize(data, PATH))
                .isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining(PATH)
                .hasMessageContaining("bad magic");
    }

    @Test
    void unsupportedVersionIsReported() {
        byte[] data = serializer.serialize(sample(JobId.generate(), 3));
        data[7] = 99;

        assertThatThrownBy(() -> serializer.deserialize(data, PATH))
                .isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining(PATH)
                .hasMessageContaining("unsupported format version 99");
    }

    // ------------------------------------------------------------------ inline state (format version 2)

    static CompletedCheckpoint withInlineState(JobId jobId, long id) {
        return new CompletedCheckpoint(jobId, id, 1_700_000_000_000L, 1_700_000_000_250L, List.of(
                new TaskStateHandle(1, 0, null, 0, new byte[] {9, 8, 7}, null),
                TaskStateHandle.inline(2, 0, new byte[] {1, 2, 3, 4, 5}, null, KeyGroupRange.of(0, 63)),
                TaskStateHandle.inline(2, 1, new byte[0], null, KeyGroupRange.of(64, 127)),
                new TaskStateHandle(2, 2, jobId + "/chk-" + id + "/2-2.state", 40_000, null, KeyGroupRange.of(128, 191))),
                null);
    }

    @Test
    void inlineStateRoundTripsNextToStateFilesInVersion2() {
        CompletedCheckpoint cp = withInlineState(JobId.of("0123456789abcdef0123456789abcdef"), 7);

        byte[] data = serializer.serialize(cp);
        CompletedCheckpoint back = serializer.deserialize(data, PATH);

        assertThat(version(data)).isEqualTo(CheckpointMetadataSerializer.VERSION_2);
        assertThat(back).isEqualTo(cp.withMetadataPath(PATH));
        assertThat(back.stateOf(2, 0).isInline()).isTrue();
        assertThat(back.stateOf(2, 0).inlineState()).containsExactly(1, 2, 3, 4, 5);
        assertThat(back.stateOf(2, 0).stateFile()).isNull();
        assertThat(back.stateOf(2, 0).stateSize()).isEqualTo(5);
        assertThat(back.stateOf(2, 1).inlineState()).as("empty, but inline").isEmpty();
        assertThat(back.stateOf(2, 2).isInline()).isFalse();
        assertThat(back.stateOf(2, 2).stateFile()).endsWith("/2-2.state");
        assertThat(back.stateOf(1, 0).hasKeyedState()).isFalse();
        assertThat(back.totalStateSize()).isEqualTo(40_005);
    }

    @Test
    void aCheckpointWithoutInlineStateIsWrittenAsVersion1SoOlderBuildsCanReadIt() throws Exception {
        byte[] golden = readGoldenVersion1();
        CompletedCheckpoint fromGolden = serializer.deserialize(golden, GOLDEN_PATH);

        assertThat(version(serializer.serialize(sample(JobId.generate(), 3)))).isEqualTo(CheckpointMetadataSerializer.VERSION_1);
        assertThat(serializer.serialize(fromGolden)).as("byte for byte what the version-1 writer wrote").isEqualTo(golden);
    }

    @Test
    void metadataWrittenByTheVersion1WriterStillLoads() throws Exception {
        // Written by the serializer before inline state existed (format version 1), kept as a file.
        CompletedCheckpoint cp = serializer.deserialize(readGoldenVersion1(), GOLDEN_PATH);

        JobId job = JobId.of("0123456789abcdef0123456789abcdef");
        assertThat(cp).isEqualTo(new CompletedCheckpoint(job, 42, 1_700_000_000_000L, 1_700_000_000_250L, List.of(
                new TaskStateHandle(1, 0, null, 0, new byte[] {0, 0, 0, 0, 0, 0, 0x30, 0x39}, null),
                new TaskStateHandle(2, 0, job.value() + "/chk-42/2-0.state", 1234, null, KeyGroupRange.of(0, 63)),
                new TaskStateHandle(2, 1, job.value() + "/chk-42/2-1.state", 987, null, KeyGroupRange.of(64, 127))),
                GOLDEN_PATH));
        assertThat(cp.taskStates()).noneMatch(TaskStateHandle::isInline);
    }

    @Test
    void stateFilesAreRelativeToTheCheckpointsDirectorySoACopyElsewhereReadsItsOwnFiles() throws Exception {
        CompletedCheckpoint copied = serializer.deserialize(readGoldenVersion1(), "backups/monday/_metadata");
        assertThat(copied.taskStates()).extracting(TaskStateHandle::stateFile)
                .containsExactly(null, "backups/monday/2-0.state", "backups/monday/2-1.state");
        CompletedCheckpoint atTheTop = serializer.deserialize(readGoldenVersion1(), "_metadata");
        assertThat(atTheTop.taskStates()).extracting(TaskStateHandle::stateFile)
                .containsExactly(null, "2-0.state", "2-1.state");
        assertThat(serializer.serialize(serializer.deserialize(readGoldenVersion1(), GOLDEN_PATH)))
                .as("read where it was written, it writes back byte for byte").isEqualTo(readGoldenVersion1());
    }

    @Test
    void everySingleFlippedByteOfVersion2IsDetected() {
        byte[] data = serializer.serialize(withInlineState(JobId.generate(), 3));
        for (int i = 0; i < data.length; i++) {
            byte[] copy = data.clone();
            copy[i] ^= 0x10;
            assertThatThrownBy(() -> serializer.deserialize(copy, PATH))
                    .as("flipped byte %d", i)
                    .isInstanceOf(CorruptCheckpointException.class)
                    .hasMessageContaining(PATH);
        }
    }

    @Test
    void everyTruncationOfVersion2IsDetected() {
        byte[] data = serializer.serialize(withInlineState(JobId.generate(), 3));
        for (int len = 0; len < data.length; len++) {
            byte[] cut = Arrays.copyOf(data, len);
            assertThatThrownBy(() -> serializer.deserialize(cut, PATH))
                    .as("truncated to %d bytes", len)
                    .isInstanceOf(CorruptCheckpointException.class)
                    .hasMessageContaining("truncated");
        }
    }

    private static int version(byte[] data) {
        return ((data[4] & 0xff) << 24) | ((data[5] & 0xff) << 16) | ((data[6] & 0xff) << 8) | (data[7] & 0xff);
    }

    private static byte[] readGoldenVersion1() throws IOException {
        try (InputStream in = CheckpointMetadataSerializerTest.class.getResourceAsStream("/checkpoint/metadata-v1.bin")) {
            assertThat(in).as("test resource checkpoint/metadata-v1.bin").isNotNull();
            return in.readAllBytes();
        }
    }

    @Test
    void incrementalHandlesAndTheSharedStateRegistryRoundTripAsVersion4AndMoveWithTheJobDirectory() {
        JobId job = JobId.of("0123456789abcdef0123456789abcdef");
        io.sluice.state.IncrementalStateHandle rocks = new io.sluice.state.IncrementalStateHandle(
                KeyGroupRange.of(0, 63), 128, new byte[] {1, 2, 3},
                List.of(new io.sluice.state.IncrementalStateHandle.StateFile("000012.sst",
                        job.value() + "/shared/2-0-abc-000012.sst", 4096)),
                List.of(new io.sluice.state.IncrementalStateHandle.StateFile("MANIFEST-000005",
                        job.value() + "/chk-9/2-0-MANIFEST-000005", 512)));
        CompletedCheckpoint cp = new CompletedCheckpoint(job, 9, 1, 2, List.of(
                TaskStateHandle.incremental(2, 0, rocks, null),
                new TaskStateHandle(1, 0, null, 0, new byte[] {7}, null)), null,
                java.util.Map.of(job.value() + "/shared/2-0-abc-000012.sst", List.of(8L, 9L),
                        job.value() + "/shared/2-0-old-000003.sst", List.of(8L)));
        byte[] data = serializer.serialize(cp);
        assertThat(version(data)).isEqualTo(CheckpointMetadataSerializer.VERSION_4);
        String path = job.value() + "/chk-9/_metadata";
        assertThat(serializer.deserialize(data, path)).isEqualTo(cp.withMetadataPath(path));

        // The job's directory copied elsewhere: shared files are read from the copy's shared/, own files from its chk-9.
        CompletedCheckpoint moved = serializer.deserialize(data, "backup/" + job.value() + "/chk-9/_metadata");
        TaskStateHandle h = moved.taskStates().get(0);
        assertThat(h.incremental().sharedFiles().get(0).path()).isEqualTo("backup/" + job.value() + "/shared/2-0-abc-000012.sst");
        assertThat(h.incremental().privateFiles().get(0).path()).isEqualTo("backup/" + job.value() + "/chk-9/2-0-MANIFEST-000005");
        assertThat(moved.sharedFileReferences()).containsOnlyKeys("backup/" + job.value() + "/shared/2-0-abc-000012.sst",
                "backup/" + job.value() + "/shared/2-0-old-000003.sst");
        assertThat(h.stateSize()).isEqualTo(4096 + 512);
    }
}
