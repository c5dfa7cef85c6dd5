package io.sluice.cli.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cli.common.ExitCodes;
import io.sluice.cli.SluiceCli;
import io.sluice.cluster.LocalCluster;
import io.sluice.rest.server.RestServer;
import io.sluice.rest.RestServerConfig;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.local.LocalClusterBackend;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.util.SystemClock;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client commands against a server that requires a bearer token ({@code rest.auth.token}). */
class ClientAuthTest {
    @TempDir
    Path dir;

    private LocalCluster cluster;
    private RestServer server;
    private String url;

    @BeforeEach
    void start() {
        cluster = LocalCluster.builder().taskExecutors(1).slotsPerTaskExecutor(1).build();
        server = RestServer.builder(RestServerConfig.defaults().withPort(0).withAuthToken("s3cret"),
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

    private static int cli(StringWriter err, String... args) {
        var cli = SluiceCli.commandLine();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void aMissingOrWrongTokenIsExit77AndTheRightOneFromTheOptionOrAFileIsAccepted() throws Exception {
        StringWriter err = new StringWriter();
        assertThat(cli(err, "list", "--cluster", url)).isEqualTo(ExitCodes.NO_PERMISSION);
        assertThat(err.toString()).contains("--token");
        assertThat(cli(new StringWriter(), "list", "--cluster", url, "--token", "wrong")).isEqualTo(ExitCodes.NO_PERMISSION);
        assertThat(cli(new StringWriter(), "list", "--cluster", url, "--token", "s3cret")).isEqualTo(ExitCodes.OK);
        Path tokenFile = Files.writeString(dir.resolve("token"), "s3cret\n");
        assertThat(cli(new StringWriter(), "list", "--cluster", url, "--token-file", tokenFile.toString()))
                .isEqualTo(ExitCodes.OK);
        assertThat(cli(new StringWriter(), "list", "--cluster", url, "--token", "a", "--token-file", tokenFile.toString()))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(cli(new StringWriter(), "list", "--cluster", "localhost:8081")).isEqualTo(ExitCodes.USAGE);
    }
}
