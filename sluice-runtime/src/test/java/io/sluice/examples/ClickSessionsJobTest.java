package io.sluice.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.cluster.LocalCluster;
import io.sluice.jobmaster.JobResult;
import io.sluice.jobmaster.JobStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The click-session example on a small file: sessions per user, out-of-order clicks within the disorder. */
class ClickSessionsJobTest {
    @TempDir
    Path dir;

    @Test
    void sessionsPerUserAndLateClicks() throws Exception {
        Path clicks = dir.resolve("clicks.csv");
        Files.writeString(clicks, String.join("\n",
                "# timestampMillis,user,url",
                "1000,ann,/home",
                "5000,bob,/home",
                "3000,ann,/search",      // out of order by 2 s: allowed (disorder 5 s)
                "20000,ann,/cart",       // ann: more than 10 s after 3000: a new session
                "21000,bob,/about",
                "40000,ann,/checkout"));
        Path out = dir.resolve("sessions");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1);
        ClickSessionsJob.build(env, clicks.toString(), out.toString(), Duration.ofSeconds(10), Duration.ofSeconds(5),
                Duration.ZERO);
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            JobResult result = cluster.executeAndWait(env.buildJobGraph("click sessions"), Duration.ofMinutes(1));
            assertThat(result.status()).as(result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
        }
        assertThat(lines(out)).containsExactlyInAnyOrder(
                "ann,1000,13000,2,/home",
                "ann,20000,30000,1,/cart",
                "ann,40000,50000,1,/checkout",
                "bob,5000,15000,1,/home",
                "bob,21000,31000,1,/about");
        // Which clicks are late depends on when watermarks go out (every 200 ms of processing time), so this
        // small file, read in one go, has none; WindowOperatorTest covers late data on a manual clock.
        assertThat(lines(Path.of(out + "-late"))).isEmpty();
    }

    private static List<String> lines(Path directory) throws Exception {
        List<String> all = new ArrayList<>();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("part-")).toList()) {
                all.addAll(Files.readAllLines(f));
            }
        }
        return all;
    }
}
