package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.e2e.SluiceCluster.CommandResult;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code sluice cluster} and {@code sluice jobmanager}, as real processes, asked to serve REST on
 * {@code 0.0.0.0} without a token: they do not start, exit 64, and say in one line which address,
 * why, and the two ways out. Nothing else is started (no job manager joins the HA services).
 */
class RestExposureITCase {
    private static final String REFUSAL = "Refusing to serve the REST API on 0.0.0.0:0 without a token: that address is"
            + " reachable from other machines, and anyone who reaches it could submit jobs (run any code on the"
            + " cluster), cancel them and read their data. Set a token (rest.auth.token-file or rest.auth.token;"
            + " clients then pass --token-file or --token), or set rest.auth.allow-unauthenticated: true to let"
            + " everyone who reaches 0.0.0.0 do all of that";

    @TempDir
    Path dir;

    @ParameterizedTest(name = "sluice {0}")
    @ValueSource(strings = {"cluster", "jobmanager"})
    void restOnAllInterfacesWithoutATokenDoesNotStartAndSaysWhy(String command) throws Exception {
        CommandResult result = SluiceCluster.sluice(dir, List.of(command, "--port", "0", "-D", "rest.address=0.0.0.0",
                "-D", "high-availability.type=memory"));
        System.out.println("sluice " + command + " -D rest.address=0.0.0.0 printed:\n" + result.output());
        assertThat(result.exitCode()).as(result.output()).isEqualTo(64);
        assertThat(result.output()).contains(REFUSAL).doesNotContain("Listening on").doesNotContain("Exception");
    }
}
