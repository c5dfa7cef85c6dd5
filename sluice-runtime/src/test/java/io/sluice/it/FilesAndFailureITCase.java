package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A word count from a text file into part files; and a job whose restart strategy gives up. */
class FilesAndFailureITCase {
    @TempDir
    Path dir;

    @Test
    void wordCountFromATextFileIntoPartFiles() throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            lines.add("alpha beta gamma " + (i % 2 == 0 ? "beta" : "delta"));
        }
        Path input = Files.write(dir.resolve("input.txt"), lines);
        Path output = dir.resolve("out");
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2);
            env.readTextFile(input.toString())
                    .<Tuple2<String, Long>>flatMap((line, out) -> {
                        for (String w : line.split(" ")) {
                            out.collect(Tuple2.of(w, 1L));
                        }
                    })
                    .keyBy(Tuple2::f0)
                    .reduce((a, b) -> Tuple2.of(a.f0(), a.f1() + b.f1()))
                    .map(t -> t.f0() + "=" + t.f1())
                    .writeAsTextAtLeastOnce(output.toString());
            JobResult result = cluster.executeAndWait(env.buildJobGraph("word count"), Duration.ofMinutes(1));
            assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        }
        Map<String, Long> last = new HashMap<>();
        try (Stream<Path> parts = Files.list(output)) {
            for (Path part : parts.sorted().toList()) {
                for (String line : Files.readAllLines(part)) {
                    String[] kv = line.split("=");
                    last.put(kv[0], Long.parseLong(kv[1]));
                }
            }
        }
        assertThat(last).containsExactlyInAnyOrderEntriesOf(Map.of("alpha", 500L, "beta", 750L, "gamma", 500L, "delta", 250L));
    }

    @Test
    void whenTheRestartStrategyGivesUpTheJobFailsWithTheRootCauseKept() throws Exception {
        InjectedFailures failures = InjectedFailures.at(List.of(10L, 20L, 30L));
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(2, Duration.ofMillis(1)));
            env.fromSequence(0, 1_000).map(v -> {
                failures.maybeFail(v);
                return v;
            }).addSink(new DiscardingSink<>());
            JobResult result = cluster.executeAndWait(env.buildJobGraph("gives up"), Duration.ofMinutes(1));
            assertThat(result.status()).isEqualTo(JobStatus.FAILED);
            assertThat(result.failureMessage()).contains("InjectedFailureException").contains("Injected failure at record 30");
            assertThat(result.failureStackTrace()).contains("InjectedFailures.maybeFail");
            assertThat(failures.thrown()).isEqualTo(3);
        } finally {
            failures.release();
        }
    }
}
