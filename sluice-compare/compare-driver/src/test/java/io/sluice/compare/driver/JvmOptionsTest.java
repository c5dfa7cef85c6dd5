package io.sluice.compare.driver;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class JvmOptionsTest {

    @Test
    void theSameFixedOptionsForEveryHarness(@TempDir Path dir) {
        Path hosts = dir.resolve("hosts");
        List<String> o = JvmOptions.forHarness(hosts);
        assertThat(o).startsWith("-Xmx2g", "-XX:+UseG1GC", "--add-opens=java.base/java.lang=ALL-UNNAMED");
        assertThat(o).filteredOn(s -> s.startsWith("--add-opens=")).hasSize(12)
                .contains("--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                        "--add-opens=java.base/java.math=ALL-UNNAMED");
        assertThat(o).endsWith("-Dzookeeper.sasl.client=false", "-Dzookeeper.admin.enableServer=false",
                "-Djava.net.preferIPv4Stack=true", "-Djdk.net.hosts.file=" + hosts.toAbsolutePath());
        assertThat(JvmOptions.forHarness(hosts)).isEqualTo(o);
        assertThat(o).doesNotContain(JvmOptions.SMOKE_ONLY);
    }

    @Test
    void smokeRunsAddTheClientCompilerOnlyToTheSameOptions() {
        Path hosts = Path.of("target/compare/hosts");
        List<String> full = JvmOptions.forHarness(hosts);
        assertThat(JvmOptions.forSmoke(hosts)).startsWith(full.toArray(String[]::new))
                .endsWith("-XX:TieredStopAtLevel=1").hasSize(full.size() + 1);
    }

    @Test
    void hostsFileNamesLocalhostTheUnresolvedNameAndThisMachine() {
        assertThat(JvmOptions.hostsLines(List.of("vm", " vm\n", "", "box.example"))).containsExactly(
                "127.0.0.1 localhost", "127.0.0.1 localhost/<unresolved>", "127.0.0.1 vm", "127.0.0.1 box.example");
        assertThat(JvmOptions.localHostNames()).isNotEmpty();
    }

    @Test
    void aJvmWithTheseOptionsResolvesEveryNameOfTheFileToLoopback(@TempDir Path dir) throws Exception {
        List<String> names = JvmOptions.localHostNames();
        Path hosts = JvmOptions.writeHostsFile(dir, names);
        assertThat(Files.readAllLines(hosts)).contains("127.0.0.1 localhost", "127.0.0.1 localhost/<unresolved>");
        List<String> lookUp = JvmOptions.hostsLines(names).stream().map(l -> l.substring(l.indexOf(' ') + 1))
                .toList();
        assertThat(HostsCheck.verify(HarnessRunner.currentJava(), JvmOptions.forHarness(hosts), lookUp)).isEmpty();
    }

    @Test
    void theCheckFailsForANameTheFileLacks(@TempDir Path dir) {
        Path hosts = JvmOptions.writeHostsFile(dir, List.of());
        assertThat(HostsCheck.verify(HarnessRunner.currentJava(), JvmOptions.forHarness(hosts),
                List.of("localhost", "not-in-the-file.invalid"))).hasValueSatisfying(p -> assertThat(p)
                .contains("not-in-the-file.invalid -> does not resolve"));
    }
}
