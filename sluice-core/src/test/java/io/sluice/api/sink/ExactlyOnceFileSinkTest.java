package io.sluice.api.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.util.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Part files hidden until committed, rolled by size and time; restores commit again and clean up. */
class ExactlyOnceFileSinkTest {
    @TempDir
    Path dir;

    static RuntimeContext subtask(int index, int parallelism) {
        return new RuntimeContext() {
            public String taskName() {
                return "sink";
            }

            public int subtaskIndex() {
                return index;
            }

            public int parallelism() {
                return parallelism;
            }

            public int maxParallelism() {
                return 128;
            }

            public int attemptNumber() {
                return 0;
            }

            public <T> ValueState<T> getState(ValueStateDescriptor<T> d) {
                throw new UnsupportedOperationException();
            }

            public <T> ListState<T> getListState(ListStateDescriptor<T> d) {
                throw new UnsupportedOperationException();
            }

            public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> d) {
                throw new UnsupportedOperationException();
            }
        };
    }

    /** What a reader sees: the lines of the visible files (names not starting with a dot). */
    private List<String> visibleLines() throws Exception {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> !p.getFileName().toString().startsWith(".")).sorted().toList()) {
                lines.addAll(Files.readAllLines(f));
            }
        }
        return lines;
    }

    private long hiddenFiles() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(".")).count();
        }
    }

    @Test
    void outputIsInvisibleUntilCommittedAndCommittingTwiceChangesNothing() throws Exception {
        ExactlyOnceFileSink<String> sink = ExactlyOnceFileSink.<String>builder(dir.toString()).build();
        SinkWriter<String, ExactlyOnceFileSink.PartFile> writer = sink.createWriter(subtask(0, 1), List.of());
        Committer<ExactlyOnceFileSink.PartFile> committer = sink.createCommitter(subtask(0, 1));
        writer.write("a");
        writer.write("b");
        assertThat(visibleLines()).isEmpty();
        List<ExactlyOnceFileSink.PartFile> pre = writer.preCommit(1);
        assertThat(pre).hasSize(1);
        assertThat(pre.get(0).length()).isEqualTo(4);
        assertThat(visibleLines()).isEmpty();
        assertThat(writer.preCommit(2)).isEmpty(); // nothing written since

        committer.commit(pre.get(0));
        assertThat(visibleLines()).containsExactly("a", "b");
        committer.commit(pre.get(0)); // a restore commits the restored checkpoint's files again
        assertThat(visibleLines()).containsExactly("a", "b");
        assertThat(hiddenFiles()).isZero();
        writer.close();
    }

    @Test
    void rollsBySizeAndByTime() throws Exception {
        ManualClock clock = new ManualClock();
        ExactlyOnceFileSink<String> sink = ExactlyOnceFileSink.<String>builder(dir.toString()).maxPartBytes(6)
                .rolloverInterval(Duration.ofMinutes(1)).clock(clock).build();
        SinkWriter<String, ExactlyOnceFileSink.PartFile> writer = sink.createWriter(subtask(0, 1), List.of());
        writer.write("aa");
        writer.write("bb"); // 6 bytes: the next record rolls
        writer.write("cc");
        clock.advance(Duration.ofMinutes(1));
        writer.write("dd"); // one minute old: rolls
        List<ExactlyOnceFileSink.PartFile> parts = writer.preCommit(1);
        assertThat(parts).extracting(ExactlyOnceFileSink.PartFile::length).containsExactly(6L, 3L, 3L);
        for (ExactlyOnceFileSink.PartFile p : parts) {
            sink.createCommitter(subtask(0, 1)).commit(p);
        }
        assertThat(visibleLines()).containsExactlyInAnyOrder("aa", "bb", "cc", "dd");
        writer.close();
    }

    @Test
    void aRestoreKeepsTheRestoredFilesAndDeletesWhatWasBegunAfterOnceACheckpointCompletes() throws Exception {
        ExactlyOnceFileSink<String> sink = ExactlyOnceFileSink.<String>builder(dir.toString()).build();
        SinkWriter<String, ExactlyOnceFileSink.PartFile> first = sink.createWriter(subtask(0, 2), List.of());
        first.write("in checkpoint 1");
        List<ExactlyOnceFileSink.PartFile> cp1 = first.preCommit(1);
        first.write("after checkpoint 1");
        first.preCommit(2); // checkpoint 2 never completes
        first.write("in progress at the crash");
        // the first attempt dies here without closing

        SinkWriter<String, ExactlyOnceFileSink.PartFile> second = sink.createWriter(subtask(0, 2), cp1);
        Committer<ExactlyOnceFileSink.PartFile> committer = sink.createCommitter(subtask(0, 2));
        committer.commit(cp1.get(0)); // the restored checkpoint's committable, committed again after the restore
        assertThat(hiddenFiles()).isEqualTo(2); // checkpoint 2's file and the one in progress, kept for now
        second.write("replayed after checkpoint 1");
        List<ExactlyOnceFileSink.PartFile> cp3 = second.preCommit(3);
        second.checkpointCompleted(3);
        committer.commit(cp3.get(0));
        assertThat(hiddenFiles()).isZero();
        assertThat(visibleLines()).containsExactlyInAnyOrder("in checkpoint 1", "replayed after checkpoint 1");
        second.close();
    }

    @Test
    void anotherSubtasksFilesAreLeftAlone() throws Exception {
        ExactlyOnceFileSink<String> sink = ExactlyOnceFileSink.<String>builder(dir.toString()).build();
        SinkWriter<String, ExactlyOnceFileSink.PartFile> other = sink.createWriter(subtask(1, 2), List.of());
        other.write("subtask 1's");
        other.preCommit(1);
        SinkWriter<String, ExactlyOnceFileSink.PartFile> mine = sink.createWriter(subtask(0, 2), List.of());
        mine.checkpointCompleted(2);
        assertThat(hiddenFiles()).isEqualTo(1);
    }

    @Test
    void committablesRoundTripThroughTheirSerializer() {
        ExactlyOnceFileSink.PartFile p = new ExactlyOnceFileSink.PartFile("/d/.part-0-x-0.inprogress", "/d/part-0-x-0", 42);
        DataOutputBuffer out = new DataOutputBuffer(32);
        ExactlyOnceFileSink.<String>builder("/d").build().committableSerializer().serialize(p, out);
        assertThat(ExactlyOnceFileSink.<String>builder("/d").build().committableSerializer()
                .deserialize(new DataInputBuffer(out.toByteArray()))).isEqualTo(p);
    }
}
