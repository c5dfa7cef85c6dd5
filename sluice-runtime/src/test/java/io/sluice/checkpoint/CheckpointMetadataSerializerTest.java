package io.sluice.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.graph.JobId;
import io.sluice.state.KeyGroupRange;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckpointMetadataSerializerTest {
    private static final String PATH = "0123456789abcdef0123456789abcdef/chk-7/_metadata";

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
}
