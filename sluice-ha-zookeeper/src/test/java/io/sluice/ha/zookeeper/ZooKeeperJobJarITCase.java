package io.sluice.ha.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.graph.JobId;
import io.sluice.jar.JarJobSubmitter;
import io.sluice.jar.ProgramRequest;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs from jars under ZooKeeper HA: the jar's bytes in {@code high-availability.storage-dir}, its
 * SHA-256 in ZooKeeper beside the job graph. A second cluster (its own ZooKeeper sessions, as another
 * job-manager process would have) on the same ZooKeeper and storage recovers the job with its jar; a
 * changed stored jar is refused naming the job and both digests.
 */
class ZooKeeperJobJarITCase {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    @RegisterExtension
    static final ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension();

    @TempDir
    Path dir;

    private Configuration config(String clusterId) {
        return zooKeeper.config(clusterId)
                .set(ZooKeeperHaOptions.STORAGE_DIR, dir.resolve("ha-storage").toUri().toString());
    }

    private static JarJobSubmitter submitter(LocalCluster cluster) {
        return new JarJobSubmitter(cluster.userCodeClassLoaders(), cluster.haServices()::jobJarStore, cluster::dispatcher,
                cluster.ioExecutor(), JarJobSubmitter.DEFAULT_MAIN_TIMEOUT);
    }

    private Path storedJar(String clusterId, JobId jobId) {
        return dir.resolve("ha-storage").resolve(clusterId).resolve("jobjars").resolve(jobId + ".jar");
    }

    @Test
    void aSecondClusterOnTheSameZooKeeperAndStorageRecoversTheJobWithItsJar() throws Exception {
        Path jar = programJar(dir);
        Path output = dir.resolve("out");
        JobId jobId;
        try (LocalCluster first = LocalCluster.builder().haServices(config("jars")).build()) {
            jobId = submitter(first).run(jar, "program.jar", new ProgramRequest(null, 2, List.of(output.toString(),
                    dir.resolve("cp").toString()), Map.of())).get(60, TimeUnit.SECONDS);
            JobId id = jobId;
            await().atMost(TIMEOUT).until(() -> first.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS)
                    .checkpoints().completed() >= 2 && outputLines(output) > 0);
            CuratorFramework zk = ((ZooKeeperHaServices) first.haServices()).client();
            String record = new String(zk.getData().forPath("/sluice/jars/jobjars/" + id),
                    java.nio.charset.StandardCharsets.UTF_8);
            assertThat(record).contains("sha256=" + ZooKeeperJobJarStore.sha256(Files.readAllBytes(jar)));
            assertThat(storedJar("jars", id)).hasSameBinaryContentAs(jar);
        }

        try (LocalCluster second = LocalCluster.builder().haServices(config("jars")).build()) {
            JobId id = jobId;
            long before = outputLines(output);
            // The program's classes exist only in the jar: RUNNING and writing again means the second
            // cluster loaded them from the jar it fetched from the storage.
            await().atMost(TIMEOUT).until(() -> second.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS)
                    .status() == JobStatus.RUNNING && outputLines(output) > before);
            assertThat(second.userCodeClassLoaders().isLoaded(id)).isTrue();
            assertThatThrownBy(() -> Class.forName("zkjob.Program")).isInstanceOf(ClassNotFoundException.class);

            second.dispatcher().cancelJob(id).get(30, TimeUnit.SECONDS);
            JobResult result = second.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(JobStatus.CANCELED);
            CuratorFramework zk = ((ZooKeeperHaServices) second.haServices()).client();
            await().atMost(TIMEOUT).until(() -> zk.checkExists().forPath("/sluice/jars/jobjars/" + id) == null
                    && !Files.exists(storedJar("jars", id)));
        }
    }

    @Test
    void aStoredJarWhoseBytesNoLongerMatchTheRecordedDigestIsRefusedNamingTheJobAndBothDigests() throws Exception {
        Path jar = programJar(dir);
        JobId jobId = JobId.generate();
        try (ZooKeeperHaServices ha = (ZooKeeperHaServices) io.sluice.ha.loader.HighAvailabilityServicesLoader.load(
                config("digest"))) {
            ha.jobJarStore().putJobJar(jobId, jar);
            assertThat(ha.jobJarStore().hasJobJar(jobId)).isTrue();
            Path intact = dir.resolve("intact.jar");
            ha.jobJarStore().copyJobJar(jobId, intact);
            assertThat(intact).hasSameBinaryContentAs(jar);

            byte[] tampered = Files.readAllBytes(jar);
            tampered[tampered.length / 2] ^= 1;
            Files.write(storedJar("digest", jobId), tampered);
            String expected = ZooKeeperJobJarStore.sha256(Files.readAllBytes(jar));
            String actual = ZooKeeperJobJarStore.sha256(tampered);

            Path target = dir.resolve("copy.jar");
            assertThatThrownBy(() -> ha.jobJarStore().copyJobJar(jobId, target))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("job " + jobId)
                    .hasMessageContaining("has SHA-256 " + actual)
                    .hasMessageContaining("records SHA-256 " + expected);
            assertThat(target).doesNotExist();

            ha.jobJarStore().removeJobJar(jobId);
            assertThat(ha.jobJarStore().hasJobJar(jobId)).isFalse();
            assertThat(storedJar("digest", jobId)).doesNotExist();
        }
    }

    @Test
    void withoutAStorageDirectoryAJarIsRejectedNamingTheOptionToSet() throws Exception {
        Path jar = programJar(dir);
        try (ZooKeeperHaServices ha = zooKeeper.services("nostorage")) {
            assertThatThrownBy(() -> ha.jobJarStore().putJobJar(JobId.generate(), jar))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining(ZooKeeperHaOptions.STORAGE_DIR.key());
        }
    }

    private static long outputLines(Path output) throws IOException {
        if (!Files.isDirectory(output)) {
            return 0;
        }
        long n = 0;
        try (Stream<Path> files = Files.list(output)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(f)) {
                    try (Stream<String> lines = Files.lines(f)) {
                        n += lines.count();
                    }
                }
            }
        }
        return n;
    }

    private static final String PROGRAM = """
            package zkjob;

            import io.sluice.api.StreamExecutionEnvironment;
            import io.sluice.api.functions.KeySelector;
            import io.sluice.api.functions.MapFunction;
            import io.sluice.api.source.SequenceSource;
            import java.time.Duration;

            public final class Program {
                public static final class ModKey implements KeySelector<Long, Long> {
                    @Override public Long getKey(Long v) { return v % 4; }
                }

                public static final class Describe implements MapFunction<Long, String> {
                    @Override public String map(Long v) { return "value " + v; }
                }

                public static void main(String[] args) throws Exception {
                    StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
                    env.enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(args[1]);
                    env.fromSource(SequenceSource.unbounded(0).withRate(300), "numbers")
                            .keyBy(new ModKey()).map(new Describe()).writeAsTextAtLeastOnce(args[0]);
                    env.execute("zookeeper jar program");
                }
            }
            """;

    /** Compiles {@link #PROGRAM} against sluice-core into a jar with a Main-Class; its classes are on no class path. */
    private static Path programJar(Path dir) throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/zkjob")).resolve("Program.java");
        Files.writeString(src, PROGRAM);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        String core = Path.of(StreamExecutionEnvironment.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = ToolProvider.getSystemJavaCompiler().run(null, null, new PrintStream(errors), "-d", classes.toString(),
                "-classpath", core, "-proc:none", "-nowarn", src.toString());
        assertThat(rc).as("javac: %s", errors).isZero();
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "zkjob.Program");
        Path jar = dir.resolve("program.jar");
        try (OutputStream file = Files.newOutputStream(jar);
             JarOutputStream out = new JarOutputStream(file, manifest);
             Stream<Path> all = Files.walk(classes)) {
            for (Path p : (Iterable<Path>) all.filter(Files::isRegularFile)::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
                out.write(Files.readAllBytes(p));
                out.closeEntry();
            }
        }
        return jar;
    }
}
