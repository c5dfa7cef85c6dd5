package io.sluice.ha.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.functions.OutputTag;
import io.sluice.core.serialization.Serializers;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.graph.JobVertex;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.operators.StreamOperator;
import io.sluice.operators.windowing.WindowOperator;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HA data written before {@code OutputTag}, {@code JobResult} and {@code JobStatus} moved to other
 * packages still reads: {@code legacy-858f2ac/} holds the job graph store and job result store files
 * that the code of commit {@code 858f2ac} wrote (how: the README beside them). The job graph's
 * window operator names {@code io.sluice.api.OutputTag}, the job result
 * {@code io.sluice.jobmaster.JobResult} and {@code io.sluice.jobmaster.JobStatus}.
 */
class MovedClassesCompatibilityTest {
    private static final JobId JOB = JobId.of("0123456789abcdef0123456789abcdef");
    private static final String RESOURCES = "legacy-858f2ac/";

    @TempDir
    Path dir;

    @Test
    void aJobGraphWhoseOperatorsHoldAnOutputTagOfThePreviousPackageRecovers() throws Exception {
        FileJobGraphStore store = new FileJobGraphStore(copy("jobgraphs"));

        JobGraph graph = store.recoverJobGraph(JOB);

        assertThat(graph.name()).isEqualTo("legacy windows");
        List<StreamOperator<?>> operators = graph.vertices().stream()
                .map(v -> v.deserializePayload(getClass().getClassLoader()))
                .flatMap(p -> p.operators().stream())
                .toList();
        WindowOperator<?, ?, ?, ?> window = operators.stream()
                .filter(o -> o instanceof WindowOperator<?, ?, ?, ?>)
                .map(o -> (WindowOperator<?, ?, ?, ?>) o)
                .findFirst().orElseThrow();
        assertThat(lateTag(window)).isEqualTo(new OutputTag<>("late", Serializers.LONG));
        assertThat(graph.vertices().stream().map(JobVertex::name)).contains("Sink: late records");
    }

    @Test
    void aJobResultOfThePreviousPackageIsRead() throws Exception {
        FileJobResultStore store = new FileJobResultStore(copy("jobresults"));

        JobResult result = store.result(JOB).orElseThrow();

        assertThat(result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(result.jobName()).isEqualTo("legacy windows");
        assertThat(result.endTimestampMillis()).isEqualTo(1_700_000_000_000L);
        assertThat(result.failureMessage()).isEqualTo("java.lang.IllegalStateException: the disk was full");
        assertThat(store.results()).containsExactly(result);
    }

    /** The store directory {@code name} of the resources, copied (stores write beside what they read). */
    private Path copy(String name) throws IOException {
        Path target = Files.createDirectories(dir.resolve(name));
        try (InputStream in = getClass().getResourceAsStream(RESOURCES + name + "/" + JOB.value())) {
            Files.copy(in, target.resolve(JOB.value()));
        }
        return target;
    }

    private static Object lateTag(WindowOperator<?, ?, ?, ?> window) throws ReflectiveOperationException {
        Field field = WindowOperator.class.getDeclaredField("lateTag");
        field.setAccessible(true);
        return field.get(window);
    }
}
