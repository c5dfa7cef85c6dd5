package io.sluice.api.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.JavaSerialization;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TextFileSourceTest {

    private static final List<String> LINES = IntStream.range(0, 40).mapToObj(i -> "line " + i + " ü").toList();

    @TempDir
    Path dir;
    private Path file;

    @BeforeEach
    void writeFile() throws IOException {
        file = Files.write(dir.resolve("input.txt"), LINES, StandardCharsets.UTF_8);
    }

    @Test
    void threeSubtasksCoverTheFileExactlyOnce() throws Exception {
        List<String> all = Readers.drainAll(new TextFileSource(file.toString()), 3, 4);

        assertThat(all).containsExactlyInAnyOrderElementsOf(LINES);
    }

    @Test
    void subtaskTakesEveryParallelismthLineStartingAtItsOwn() throws Exception {
        Files.writeString(file, "a\r\nb\nc\nd\ne", StandardCharsets.UTF_8);

        try (SourceReader<String> reader = new TextFileSource(file.toString()).createReader(1, 2)) {
            assertThat(Readers.drain(reader, 10)).containsExactly("b", "d");
        }
    }

    @Test
    void restoreInANewReaderContinuesWithNoGapAndNoDuplicate() throws Exception {
        TextFileSource source = new TextFileSource(file.toString());
        List<String> before;
        byte[] position;
        try (SourceReader<String> first = source.createReader(1, 3)) {
            before = Readers.take(first, 4);
            position = first.snapshotPosition();
            first.emit(v -> { }, 3);
        }

        List<String> joined = new ArrayList<>(before);
        try (SourceReader<String> restored = JavaSerialization.roundTrip(source).createReader(1, 3)) {
            restored.restorePosition(position);
            assertThat(restored.snapshotPosition()).isEqualTo(position);
            joined.addAll(Readers.drain(restored, 2));
        }

        assertThat(position).hasSize(8);
        try (SourceReader<String> uninterrupted = source.createReader(1, 3)) {
            assertThat(joined).isEqualTo(Readers.drain(uninterrupted, 100));
        }
    }

    @Test
    void positionCountsLinesReadFromTheFile() throws Exception {
        try (SourceReader<String> reader = new TextFileSource(file.toString()).createReader(2, 3)) {
            assertThat(Readers.take(reader, 2)).containsExactly(LINES.get(2), LINES.get(5));
            assertThat(reader.snapshotPosition()).isEqualTo(longBytes(6));
        }
    }

    @Test
    void missingFileFailsAtCreateReaderNamingThePath() {
        Path missing = dir.resolve("no-such-file.txt");
        TextFileSource source = new TextFileSource(missing.toString());

        assertThatThrownBy(() -> source.createReader(0, 1))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining("exists and is readable");
    }

    @Test
    void restoreRejectsPositionsOfTheWrongLengthOrPastTheEndOfTheFile() throws Exception {
        try (SourceReader<String> reader = new TextFileSource(file.toString()).createReader(0, 2)) {
            assertThatThrownBy(() -> reader.restorePosition(new byte[3]))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("8 bytes")
                    .hasMessageContaining("3 bytes");
            assertThatThrownBy(() -> reader.restorePosition(longBytes(41)))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("41 lines")
                    .hasMessageContaining("only 40");
        }
    }

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }
}
