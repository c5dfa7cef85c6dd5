package io.sluice.ha.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileJobStoresTest {
    private static final JobId JOB_A = JobId.of("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    private static final JobId JOB_B = JobId.of("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");

    @TempDir
    Path dir;

    static JobGraph graph(JobId id, String name) {
        JobConfig config = new JobConfig(Duration.ofSeconds(1), Duration.ofMinutes(1), 3, 0, "/tmp/chk",
                RestartStrategyConfig.fromConfiguration(new Configuration()), false);
        return new JobGraph(id, name, List.of(), List.of(), config);
    }

    @Test
    void jobGraphRoundTripAndListing() throws Exception {
        FileJobGraphStore store = new FileJobGraphStore(dir.resolve("jobgraphs"));
        assertThat(store.jobIds()).isEmpty();

        store.putJobGraph(graph(JOB_A, "a"));
        store.putJobGraph(graph(JOB_B, "b"));
        // put adds a NEW job: a second graph under the same id is rejected and leaves the first.
        assertThatThrownBy(() -> store.putJobGraph(graph(JOB_B, "b2")))
                .isInstanceOf(io.sluice.ha.JobAlreadySubmittedException.class)
                .hasMessageContaining("Job " + JOB_B + " was already submitted");
        Files.writeString(dir.resolve("jobgraphs").resolve("." + JOB_A + ".tmp-123"), "half written");

        assertThat(store.jobIds()).containsExactlyInAnyOrder(JOB_A, JOB_B);
        assertThat(store.recoverJobGraph(JOB_A)).isEqualTo(graph(JOB_A, "a"));
        assertThat(store.recoverJobGraph(JOB_B).name()).isEqualTo("b");

        store.removeJobGraph(JOB_A);
        store.removeJobGraph(JOB_A);
        assertThat(store.jobIds()).containsExactly(JOB_B);
    }

    @Test
    void recoveringAMissingOrCorruptJobGraphNamesTheJobAndThePath() throws Exception {
        Path graphs = dir.resolve("jobgraphs");
        FileJobGraphStore store = new FileJobGraphStore(graphs);

        assertThatThrownBy(() -> store.recoverJobGraph(JOB_A))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("job " + JOB_A)
                .hasMessageContaining(graphs.resolve(JOB_A.value()).toString());

        Files.createDirectories(graphs);
        Files.write(graphs.resolve(JOB_B.value()), new byte[] {1, 2, 3});
        assertThatThrownBy(() -> store.recoverJobGraph(JOB_B))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("job " + JOB_B)
                .hasMessageContaining(graphs.resolve(JOB_B.value()).toString())
                .hasMessageContaining("corrupt");
    }

    @Test
    void jobResultRoundTripAndListing() throws Exception {
        FileJobResultStore store = new FileJobResultStore(dir.resolve("jobresults"));
        JobResult finished = JobResult.of(JOB_A, "a", JobStatus.FINISHED, 100, null);
        JobResult failed = JobResult.of(JOB_B, "b", JobStatus.FAILED, 200, new IllegalStateException("boom"));

        assertThat(store.hasResult(JOB_A)).isFalse();
        assertThat(store.result(JOB_A)).isEmpty();
        store.putResult(finished);
        store.putResult(finished);
        store.putResult(failed);

        assertThat(store.hasResult(JOB_A)).isTrue();
        assertThat(store.result(JOB_A)).contains(finished);
        assertThat(store.result(JOB_B)).contains(failed);
        assertThat(store.results()).containsExactlyInAnyOrder(finished, failed);
        assertThat(new FileJobResultStore(dir.resolve("jobresults")).result(JOB_B).orElseThrow().failureMessage())
                .isEqualTo("java.lang.IllegalStateException: boom");

        store.removeResult(JOB_A);
        store.removeResult(JOB_A); // idempotent
        assertThat(store.hasResult(JOB_A)).isFalse();
        assertThat(new FileJobResultStore(dir.resolve("jobresults")).results()).containsExactly(failed);
    }
}
