package io.sluice.api.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.functions.FakeRuntimeContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtLeastOnceFileSinkTest {

    @TempDir
    Path dir;

    @Test
    void writesOneLinePerRecordToAPartFilePerSubtask() throws Exception {
        Path out = dir.resolve("out/nested");
        AtLeastOnceFileSink<Object> sink0 = new AtLeastOnceFileSink<>(out.toString());
        AtLeastOnceFileSink<Object> sink1 = new AtLeastOnceFileSink<>(out.toString());
        sink0.open(new FakeRuntimeContext(0, 2));
        sink1.open(new FakeRuntimeContext(1, 2));

        sink0.invoke("a");
        sink1.invoke(42L);
        sink0.invoke("ü");
        sink0.close();
        sink1.close();

        assertThat(Files.readAllLines(out.resolve("part-0"), StandardCharsets.UTF_8)).containsExactly("a", "ü");
        assertThat(Files.readAllLines(out.resolve("part-1"), StandardCharsets.UTF_8)).containsExactly("42");
        assertThat(sink0.partFile(1)).isEqualTo(out.resolve("part-1"));
    }

    @Test
    void flushesWhenACheckpointCompletes() throws Exception {
        AtLeastOnceFileSink<String> sink = new AtLeastOnceFileSink<>(dir.toString());
        sink.open(new FakeRuntimeContext(0, 1));
        sink.invoke("before");

        sink.notifyCheckpointComplete(1);

        assertThat(Files.readString(dir.resolve("part-0"))).isEqualTo("before\n");
        sink.close();
    }

    @Test
    void flushesBeforeTheTaskSnapshotsSoLinesBeforeTheBarrierAreInTheFile() throws Exception {
        AtLeastOnceFileSink<String> sink = new AtLeastOnceFileSink<>(dir.toString());
        sink.open(new FakeRuntimeContext(0, 1));
        sink.invoke("before the barrier");
        assertThat(Files.readString(dir.resolve("part-0"))).as("buffered until a checkpoint").isEmpty();

        sink.beforeCheckpoint(1);

        assertThat(Files.readString(dir.resolve("part-0"))).isEqualTo("before the barrier\n");
        sink.close();
    }

    @Test
    void appendsAfterARestartInsteadOfTruncating() throws Exception {
        AtLeastOnceFileSink<String> first = new AtLeastOnceFileSink<>(dir.toString());
        first.open(new FakeRuntimeContext(0, 1));
        first.invoke("one");
        first.close();

        AtLeastOnceFileSink<String> second = new AtLeastOnceFileSink<>(dir.toString());
        second.open(new FakeRuntimeContext(0, 1));
        second.invoke("two");
        second.close();

        assertThat(Files.readAllLines(dir.resolve("part-0"))).containsExactly("one", "two");
    }

    @Test
    void unwritableDirectoryFailsAtOpenNamingThePath() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("plain-file"), "x");
        AtLeastOnceFileSink<String> sink = new AtLeastOnceFileSink<>(notADirectory.toString());

        assertThatThrownBy(() -> sink.open(new FakeRuntimeContext(0, 1)))
                .hasMessageContaining(notADirectory.resolve("part-0").toString())
                .hasMessageContaining("writable directory");
    }

    @Test
    void invokeBeforeOpenSaysWhatToDo() {
        assertThatThrownBy(() -> new AtLeastOnceFileSink<String>(dir.toString()).invoke("x"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("open(RuntimeContext)");
    }
}
