package io.sluice.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution built in {@code package} ({@code target/sluice-<version>.tar.gz}), unpacked as a
 * user would ({@code tar xzf}): its layout, and {@code bin/sluice} run as a program (through its
 * {@code #!/bin/sh} line) — the version and help, the default {@code --config} from
 * {@code SLUICE_CONF_DIR}, an explicit {@code --config} winning, ZooKeeper HA and the S3 options
 * on its class path, a symbolic link to the launcher, and a wrong {@code JAVA_HOME}.
 */
class DistributionTarballITCase {
    private static final long TIMEOUT_SECONDS = 60;

    @TempDir
    Path dir;

    private String version;
    private Path home;

    /** What a finished process printed and returned. */
    private record Run(int exitCode, String stdout, String stderr) {
    }

    @BeforeEach
    void unpack() throws Exception {
        String tarball = System.getProperty("sluice.dist.tarball");
        assumeTrue(tarball != null, "run through Maven (mvn verify), which builds the distribution and names it");
        version = System.getProperty("sluice.version");
        assertThat(Path.of(tarball)).as("the distribution, built in the package phase").isRegularFile();
        Run untar = run(dir, Map.of(), "tar", "xzf", tarball, "-C", dir.toString());
        assertThat(untar.exitCode()).as("tar: %s", untar.stderr()).isZero();
        home = dir.resolve("sluice-" + version);
    }

    @Test
    void theTarballHoldsTheLauncherConfigurationLibrariesAndExamples() throws IOException {
        assertThat(home.resolve("bin/sluice")).isExecutable();
        assertThat(home.resolve("conf/sluice.yaml")).isRegularFile();
        assertThat(home.resolve("conf/logback.xml")).isRegularFile();
        assertThat(home.resolve("examples/sluice-examples.jar")).isRegularFile();
        assertThat(home.resolve("README.md")).isRegularFile();
        assertThat(home.resolve("docs/deployment.md")).isRegularFile();
        List<String> jars;
        try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
            jars = lib.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertThat(jars).contains("sluice-dist-" + version + ".jar", "sluice-runtime-" + version + ".jar",
                "sluice-rest-" + version + ".jar", "sluice-ha-zookeeper-" + version + ".jar",
                "sluice-storage-s3-" + version + ".jar");
        assertThat(jars).as("the shaded sluice.jar, test libraries and native Netty other than OpenSSL for Linux"
                        + " x86-64 (security.internal.tls.provider) are not shipped")
                .noneMatch(j -> j.equals("sluice.jar") || j.startsWith("junit") || j.contains("epoll")
                        || j.startsWith("netty-tcnative-boringssl-static") && !j.endsWith("-linux-x86_64.jar"));
        assertThat(jars).filteredOn(j -> j.startsWith("netty-tcnative")).as("OpenSSL for the internal TLS")
                .hasSize(2).anyMatch(j -> j.startsWith("netty-tcnative-classes-"));
        // Two versions of one library would both be on the class path. (Two libraries named 'annotations' are
        // shipped: org.jetbrains' and the AWS SDK's.)
        List<String> artifacts = jars.stream().map(j -> j.replaceFirst("-\\d[^-]*(-SNAPSHOT)?(-[a-z_0-9-]+)?\\.jar$", ""))
                .filter(a -> !a.equals("annotations")).toList();
        assertThat(artifacts).as("one version per library").doesNotHaveDuplicates();
    }

    @Test
    void binSluicePrintsTheVersionAndTheCommands() throws Exception {
        Run versionRun = sluice(Map.of(), "--version");
        assertThat(versionRun.exitCode()).as("exit code; stderr: %s", versionRun.stderr()).isZero();
        assertThat(versionRun.stdout().strip()).isEqualTo("Sluice " + version);

        Run help = sluice(Map.of(), "--help");
        assertThat(help.exitCode()).as("exit code; stderr: %s", help.stderr()).isZero();
        assertThat(help.stdout()).contains("Usage: sluice", "demo", "cluster", "run", "status");
    }

    @Test
    void theCommandsThatReadAConfigFileGetSluiceYamlFromSluiceConfDir() throws Exception {
        Path conf = Files.createDirectories(dir.resolve("my-conf"));
        Files.writeString(conf.resolve("sluice.yaml"), "rest.prot: 8081\n");

        Run cluster = sluice(Map.of("SLUICE_CONF_DIR", conf.toString()), "cluster");

        assertThat(cluster.exitCode()).as("exit code (64: invalid configuration); stdout: %s", cluster.stdout()).isEqualTo(64);
        assertThat(cluster.stderr()).contains("Unknown configuration key 'rest.prot'; did you mean 'rest.port'?");
    }

    @Test
    void anExplicitConfigOptionIsNotOverriddenByTheDefaultOne() throws Exception {
        Path conf = Files.createDirectories(dir.resolve("my-conf"));
        Files.writeString(conf.resolve("sluice.yaml"), "rest.prot: 8081\n");
        Path mine = Files.writeString(dir.resolve("mine.yaml"), "checkpoints.intervall: 1 s\n");

        Run cluster = sluice(Map.of("SLUICE_CONF_DIR", conf.toString()), "cluster", "--config=" + mine);

        assertThat(cluster.exitCode()).as("exit code; stdout: %s", cluster.stdout()).isEqualTo(64);
        assertThat(cluster.stderr()).contains("'checkpoints.intervall'").doesNotContain("rest.prot");
    }

    @Test
    void zooKeeperHaAndS3OptionsComeWithTheDistribution() throws Exception {
        // Nothing listens on port 1: the ZooKeeper HA services (from lib/) get as far as connecting, and the
        // s3.* key is accepted, so neither module is reported missing from the class path.
        Run cluster = sluice(Map.of(), "cluster", "--port", "0", "-D", "high-availability.type=zookeeper",
                "-D", "high-availability.zookeeper.quorum=127.0.0.1:1",
                "-D", "high-availability.zookeeper.connection-timeout=1 s", "-D", "s3.region=us-east-1");

        assertThat(cluster.exitCode()).as("exit code; stdout: %s", cluster.stdout()).isNotZero();
        assertThat(cluster.stderr()).contains("Could not connect to ZooKeeper at 127.0.0.1:1 within 1 s")
                .doesNotContain("not on the classpath", "not on the class path");
    }

    @Test
    void aSymbolicLinkToTheLauncherFindsTheDistribution() throws Exception {
        Path link = Files.createSymbolicLink(Files.createDirectories(dir.resolve("usr-local-bin")).resolve("sluice"),
                home.resolve("bin/sluice"));

        Run viaLink = run(dir, javaHome(), link.toString(), "--version");

        assertThat(viaLink.exitCode()).as("exit code; stderr: %s", viaLink.stderr()).isZero();
        assertThat(viaLink.stdout().strip()).isEqualTo("Sluice " + version);
    }

    @Test
    void aJavaHomeWithoutJavaIsReportedClearly() throws Exception {
        Run run = run(dir, Map.of("JAVA_HOME", dir.resolve("no-java").toString()), home.resolve("bin/sluice").toString(),
                "--version");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.stderr()).contains("JAVA_HOME is '" + dir.resolve("no-java") + "'", "not executable");
    }

    private Run sluice(Map<String, String> env, String... args) throws Exception {
        Map<String, String> all = new java.util.HashMap<>(javaHome());
        all.putAll(env);
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/sluice").toString()));
        command.addAll(List.of(args));
        return run(dir, all, command.toArray(String[]::new));
    }

    private static Map<String, String> javaHome() {
        return Map.of("JAVA_HOME", System.getProperty("java.home"));
    }

    private Run run(Path workingDirectory, Map<String, String> env, String... command) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(workingDirectory.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().remove("SLUICE_CONF_DIR");
        builder.environment().remove("SLUICE_JAVA_OPTS");
        builder.environment().putAll(env);
        Process process = builder.start();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not end within " + TIMEOUT_SECONDS + " s");
        }
        return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
    }
}
