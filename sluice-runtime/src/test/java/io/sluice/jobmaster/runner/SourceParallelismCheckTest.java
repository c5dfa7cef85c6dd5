package io.sluice.jobmaster.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.source.Source;
import io.sluice.api.source.SourceReader;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.core.serialization.Serializers;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.graph.JobVertex;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A job started from a checkpoint in which a source that keeps its positions per subtask index ran at another
 * parallelism is refused: the restored job would read some records twice and others never (seen across
 * processes: 745-755 per key where 750 was right, and the job FINISHED). Other vertices, and sources that
 * redistribute their positions, may change parallelism.
 */
class SourceParallelismCheckTest {
    private static JobGraph job(int sourceParallelism, int parallelism) {
        return job(new FixedPositions(), sourceParallelism, parallelism);
    }

    private static JobGraph job(Source<Long> source, int sourceParallelism, int parallelism) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(parallelism);
        env.fromSource(source, "numbers").setParallelism(sourceParallelism)
                .keyBy(v -> v % 4, Serializers.LONG)
                .map(v -> v).returns(Serializers.LONG)
                .addSink(new DiscardingSink<>(), "out");
        return env.buildJobGraph("job");
    }

    /** A checkpoint of {@code graph}: one handle per subtask of every vertex, positions for the sources. */
    private static CompletedCheckpoint checkpointOf(JobGraph graph) {
        List<TaskStateHandle> handles = new ArrayList<>();
        for (JobVertex v : graph.vertices()) {
            for (int s = 0; s < v.parallelism(); s++) {
                handles.add(new TaskStateHandle(v.id(), s, null, 0, v.isSource() ? new byte[8] : null, null));
            }
        }
        return new CompletedCheckpoint(JobId.generate(), 46, 1, 2, handles, "chk-46/_metadata");
    }

    @Test
    void aSourceAtAnotherParallelismIsRefusedNamingBothParallelismsAndTheRemedy() {
        CompletedCheckpoint from = checkpointOf(job(2, 2));

        assertThatThrownBy(() -> SourceParallelismCheck.check(job(3, 3), from, "/savepoints/sp-1"))
                .isInstanceOf(RestoreCheckpointException.class)
                .hasMessageContaining("checkpoints.restore-from '/savepoints/sp-1'")
                .hasMessageContaining("ran at parallelism 2 in checkpoint 46")
                .hasMessageContaining("runs it at parallelism 3")
                .hasMessageContaining("setParallelism(2)")
                .hasMessageContaining("Nothing was deleted");
        assertThat(CheckpointRecovery.isPermanent(new RestoreCheckpointException("x")))
                .as("the job fails instead of retrying").isTrue();
    }

    @Test
    void theOtherVerticesMayChangeParallelismWhileTheSourceKeepsIts() {
        CompletedCheckpoint from = checkpointOf(job(2, 2));

        assertThatCode(() -> SourceParallelismCheck.check(job(2, 3), from, "sp")).doesNotThrowAnyException();
        assertThatCode(() -> SourceParallelismCheck.check(job(2, 1), from, "sp")).doesNotThrowAnyException();
        assertThatCode(() -> SourceParallelismCheck.check(job(2, 2), from, "sp")).doesNotThrowAnyException();
    }

    @Test
    void aSourceThatRedistributesItsPositionsMayChangeParallelism() {
        CompletedCheckpoint from = checkpointOf(job(SequenceSource.bounded(0, 99), 2, 2));

        assertThat(job(SequenceSource.bounded(0, 99), 3, 3).vertices().get(0).redistributesSourcePositions()).isTrue();
        assertThatCode(() -> SourceParallelismCheck.check(job(SequenceSource.bounded(0, 99), 3, 3), from, "sp"))
                .doesNotThrowAnyException();
        assertThatCode(() -> SourceParallelismCheck.check(job(SequenceSource.bounded(0, 99), 1, 1), from, "sp"))
                .doesNotThrowAnyException();
    }

    /** The sequence, in a source that keeps its positions per subtask index (the default of a user's source). */
    private static final class FixedPositions implements Source<Long> {
        @Override
        public SourceReader<Long> createReader(int subtaskIndex, int parallelism) {
            return SequenceSource.bounded(0, 99).createReader(subtaskIndex, parallelism);
        }

        @Override
        public boolean isBounded() {
            return true;
        }
    }

    @Test
    void aSourceTheCheckpointHasNoStateOfIsNotChecked() {
        JobGraph graph = job(3, 3);
        CompletedCheckpoint none = new CompletedCheckpoint(JobId.generate(), 1, 1, 2, List.of(), "chk-1/_metadata");

        assertThatCode(() -> SourceParallelismCheck.check(graph, none, "sp")).doesNotThrowAnyException();
    }
}
