package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cli.common.ExitCodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A process started with ZooKeeper HA while ZooKeeper cannot be reached exits with 69 (unavailable)
 * and one line saying what it tried and what to check, not a stack trace with 70. Before, it
 * printed the stack trace of an IllegalStateException and exited 70 ("unexpected error").
 */
class HaUnavailableTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"cluster", "jobmanager", "taskmanager"})
    void anUnreachableZooKeeperIsAClearErrorWithExitCode69(String command) throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort(); // nothing listens there once closed
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = SluiceCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(command, "-D", "high-availability.type=zookeeper",
                "-D", "high-availability.zookeeper.quorum=127.0.0.1:" + closedPort,
                "-D", "high-availability.zookeeper.connection-timeout=1 s",
                "-D", "high-availability.storage-dir=" + dir.resolve("ha"),
                "-D", "rest.port=0", "-D", "jobmanager.rpc.port=0");
        assertThat(code).as(out + "\n" + err).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(err.toString()).contains("Could not connect to ZooKeeper at 127.0.0.1:" + closedPort)
                .contains("high-availability.zookeeper.quorum")
                .doesNotContain("\tat ");
    }
}
