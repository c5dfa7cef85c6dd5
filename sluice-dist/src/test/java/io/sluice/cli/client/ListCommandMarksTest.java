package io.sluice.cli.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cli.SluiceCli;
import io.sluice.cli.common.ExitCodes;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.rest.RestServerConfig;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.rest.local.LocalClusterBackend;
import io.sluice.rest.server.RestServer;
import io.sluice.util.SystemClock;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice list} and {@code sluice status} against a real cluster with a job whose code throws
 * at every start: under the job's line, "crash loop: the same error N times since T" and "no
 * checkpoint since T"; a healthy job gets no such line.
 */
class ListCommandMarksTest {
    @TempDir
    Path dir;

    private LocalCluster cluster;
    private RestServer server;
    private String url;

    @BeforeEach
    void start() {
        cluster = LocalCluster.builder().taskExecutors(1).slotsPerTaskExecutor(2).build();
        server = RestServer.builder(RestServerConfig.defaults().withPort(0),
                new LocalClusterBackend(cluster, new LocalJarDirectory(dir.resolve("jars"), cluster.ioExecutor(),
                        SystemClock.INSTANCE), JarRunner.unsupported())).build();
        server.start();
        url = "http://127.0.0.1:" + server.port();
    }

    @AfterEach
    void stop() {
        server.close();
        cluster.close();
    }

    private static String cli(String... args) {
        StringWriter out = new StringWriter();
        var cli = SluiceCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(new StringWriter(), true));
        assertThat(cli.execute(args)).as(out.toString()).isEqualTo(ExitCodes.OK);
        return out.toString();
    }

    @Test
    void aJobInACrashLoopWithoutCheckpointsIsMarkedUnderItsLineAndAHealthyOneIsNot() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(dir.resolve("checkpoints").toString())
                .setCheckpointStaleAfter(Duration.ofSeconds(1))
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(1_000, Duration.ofMillis(50)));
        env.fromSource(SequenceSource.unbounded(0).withRate(1_000), "numbers").map(new AlwaysThrows())
                .addSink(new DiscardingSink<>(), "results");
        String failing = cluster.submit(env.buildJobGraph("always throws")).value();
        StreamExecutionEnvironment ok = StreamExecutionEnvironment.create().setParallelism(1);
        ok.fromSource(SequenceSource.unbounded(0).withRate(10), "numbers").addSink(new DiscardingSink<>(), "results");
        String healthy = cluster.submit(ok.buildJobGraph("healthy")).value();

        String list = await().atMost(Duration.ofSeconds(60)).until(() -> cli("list", "--cluster", url),
                text -> text.contains("crash loop") && text.contains("no checkpoint since"));
        String[] lines = list.split("\n");
        int row = indexOf(lines, failing);
        assertThat(lines[row]).contains("always throws");
        assertThat(lines[row + 1]).startsWith("  ! crash loop: the same error ").contains(" times since ")
                .contains("java.lang.IllegalStateException: cannot reach the lookup service");
        assertThat(lines[row + 2]).startsWith("  ! no checkpoint since ");
        int healthyRow = indexOf(lines, healthy);
        assertThat(healthyRow + 1 == lines.length || !lines[healthyRow + 1].startsWith("  !"))
                .as("no mark under the healthy job:\n%s", list).isTrue();

        String status = cli("status", failing, "--cluster", url);
        assertThat(status).contains("WARNING      crash loop: the same error")
                .contains("WARNING      no checkpoint since")
                .contains("what to do   ").contains("--restore-from latest:" + failing);
    }

    private static int indexOf(String[] lines, String jobId) {
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].startsWith(jobId)) {
                return i;
            }
        }
        throw new AssertionError("job " + jobId + " is not listed:\n" + String.join("\n", lines));
    }

    /**
     * Code that cannot start: it fails in {@code open}, before its task runs, so no checkpoint of
     * the job can ever complete (a checkpoint needs every task running). A function failing on its
     * first record instead let a checkpoint slip in now and then, between a task's start and that
     * record, and the "no checkpoint since" mark went away for a second.
     */
    static final class AlwaysThrows implements MapFunction<Long, Long>, RichFunction {
        @Override
        public void open(RuntimeContext context) {
            throw new IllegalStateException("cannot reach the lookup service at lookup:7000");
        }

        @Override
        public Long map(Long value) {
            return value;
        }
    }
}
