package io.sluice.jar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sluice.cluster.LocalCluster;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs from jars on a local cluster: the program's {@code main} builds the job, the job runs in a
 * class loader of its own that is closed (and collectable) once the job ended, and a cluster
 * restarted on the same HA directory recovers the job with its jar from the HA services.
 */
class JarJobITCase {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private static JarJobSubmitter submitter(LocalCluster cluster) {
        return new JarJobSubmitter(cluster.userCodeClassLoaders(), cluster.haServices()::jobJarStore, cluster::dispatcher,
                cluster.ioExecutor(), JarJobSubmitter.DEFAULT_MAIN_TIMEOUT);
    }

    private static long outputLines(Path output) throws Exception {
        if (!Files.isDirectory(output)) {
            return 0;
        }
        long n = 0;
        try (Stream<Path> files = Files.list(output)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(f)) {
                    try (Stream<String> lines = Files.lines(f)) {
                        n += lines.filter(l -> l.startsWith("value ")).count();
                    }
                }
            }
        }
        return n;
    }

    @Test
    void aJobFromAJarRunsInItsOwnClassLoaderWhichIsClosedAndUnreachableOnceTheJobEnded() throws Exception {
        Path jar = TestJars.countingProgramJar(dir);
        Path output = dir.resolve("out");
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            JobId jobId = submitter(cluster).run(jar, "counting.jar", new ProgramRequest(null, 2,
                    List.of("--records", "0", "--rate", "500", "--output", output.toString()), Map.of()))
                    .get(60, TimeUnit.SECONDS);

            await().atMost(TIMEOUT).until(() -> cluster.dispatcher().requestJobDetails(jobId).get(5, TimeUnit.SECONDS)
                    .status() == JobStatus.RUNNING && outputLines(output) > 0);
            WeakReference<ClassLoader> loaderRef = checkedJobLoader(cluster, jobId);

            cluster.dispatcher().cancelJob(jobId).get(30, TimeUnit.SECONDS);
            JobResult result = cluster.dispatcher().requestJobResult(jobId).get(60, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(JobStatus.CANCELED);

            await().atMost(TIMEOUT).until(() -> !cluster.userCodeClassLoaders().isLoaded(jobId));
            await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(100)).until(() -> {
                System.gc();
                return loaderRef.get() == null;
            });
            try (Stream<Path> copies = Files.list(cluster.userCodeClassLoaders().cacheDirectory())) {
                assertThat(copies).as("the private jar copies are deleted with their loaders").isEmpty();
            }
        }
    }

    /**
     * The job's loader, checked to hold the program's classes, as a weak reference only: a separate
     * frame, so that no local variable of the test keeps the loader reachable.
     */
    private static WeakReference<ClassLoader> checkedJobLoader(LocalCluster cluster, JobId jobId) throws Exception {
        try (ClassLoaderLease lease = cluster.userCodeClassLoaders().acquireIfLoaded(jobId).orElseThrow()) {
            ClassLoader loader = lease.classLoader();
            assertThat(loader).isInstanceOf(ChildFirstClassLoader.class);
            assertThat(Class.forName("userjob.CountingProgram", false, loader).getClassLoader()).isSameAs(loader);
            assertThatThrownBy(() -> Class.forName("userjob.CountingProgram"))
                    .isInstanceOf(ClassNotFoundException.class); // only in the jar
            return new WeakReference<>(loader);
        }
    }

    @Test
    void aBoundedProgramFinishesWithTheParallelismAndArgumentsOfTheRun() throws Exception {
        Path jar = TestJars.countingProgramJar(dir);
        Path output = dir.resolve("out");
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            JobId jobId = submitter(cluster).run(jar, "counting.jar", new ProgramRequest("userjob.CountingProgram", 3,
                    List.of("--records", "300", "--rate", "0", "--output", output.toString()), Map.of()))
                    .get(60, TimeUnit.SECONDS);
            JobResult result = cluster.dispatcher().requestJobResult(jobId).get(60, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
            assertThat(outputLines(output)).isEqualTo(300);
            try (Stream<Path> parts = Files.list(output)) {
                assertThat(parts.count()).as("one part file per sink subtask at parallelism 3").isEqualTo(3);
            }
            await().atMost(TIMEOUT).until(() -> !cluster.userCodeClassLoaders().isLoaded(jobId));
        }
    }

    @Test
    void aRestartedClusterRecoversTheJobWithItsJarFromTheHaDirectory() throws Exception {
        Path jar = TestJars.countingProgramJar(dir);
        Path ha = dir.resolve("ha");
        Path output = dir.resolve("out");
        JobId jobId;
        try (LocalCluster first = LocalCluster.builder().haDirectory(ha).build()) {
            jobId = submitter(first).run(jar, "counting.jar", new ProgramRequest(null, null, List.of("--records", "0",
                    "--rate", "500", "--output", output.toString(), "--checkpoint-dir", dir.resolve("cp").toString()),
                    Map.of())).get(60, TimeUnit.SECONDS);
            JobId id = jobId;
            await().atMost(TIMEOUT).until(() ->
                    first.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 2);
        }
        assertThat(ha.resolve("jobjars").resolve(jobId + ".jar")).isRegularFile();

        try (LocalCluster second = LocalCluster.builder().haDirectory(ha).build()) {
            JobId id = jobId;
            long before = outputLines(output);
            // Its user classes are only in the jar: RUNNING again means the jar's loader deserialized them.
            await().atMost(TIMEOUT).until(() -> second.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS)
                    .status() == JobStatus.RUNNING && outputLines(output) > before);
            assertThat(second.userCodeClassLoaders().isLoaded(id)).isTrue();

            second.dispatcher().cancelJob(id).get(30, TimeUnit.SECONDS);
            assertThat(second.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS).status())
                    .isEqualTo(JobStatus.CANCELED);
            await().atMost(TIMEOUT).until(() -> !Files.exists(ha.resolve("jobjars").resolve(id + ".jar")));
            await().atMost(TIMEOUT).until(() -> !second.userCodeClassLoaders().isLoaded(id));
        }
    }

    /**
     * The cluster configuration's job settings reach jobs from jars (before, only the request's did,
     * so a cluster's checkpoints.dir was silently ignored), and a request's -D overrides them.
     */
    @Test
    void theClustersJobSettingsAreDefaultsForJobsFromJars() throws Exception {
        Path jar = TestJars.countingProgramJar(dir);
        String clusterDir = dir.resolve("cluster-checkpoints").toString();
        io.sluice.config.Configuration clusterConfig = new io.sluice.config.Configuration(Map.of(
                "checkpoints.dir", clusterDir, "checkpoints.interval", "400 ms", "pipeline.parallelism", "2",
                "high-availability.type", "embedded"));
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            JarJobSubmitter submitter = new JarJobSubmitter(cluster.userCodeClassLoaders(),
                    cluster.haServices()::jobJarStore, cluster::dispatcher, cluster.ioExecutor(),
                    JarJobSubmitter.DEFAULT_MAIN_TIMEOUT, clusterConfig);
            JobId jobId = submitter.run(jar, "counting.jar", new ProgramRequest(null, null,
                    List.of("--records", "0", "--rate", "100", "--output", dir.resolve("out2").toString()),
                    Map.of("checkpoints.interval", "700 ms"))).get(60, TimeUnit.SECONDS);
            io.sluice.graph.JobGraph graph = cluster.dispatcher().requestJobGraph(jobId).get(10, TimeUnit.SECONDS)
                    .orElseThrow();
            assertThat(graph.config().checkpointDir()).as("the cluster's checkpoints.dir").isEqualTo(clusterDir);
            assertThat(graph.config().checkpointInterval()).as("the request's -D wins")
                    .isEqualTo(Duration.ofMillis(700));
            assertThat(graph.requiredSlots()).as("the cluster's pipeline.parallelism").isEqualTo(2);
            cluster.dispatcher().cancelJob(jobId).get(30, TimeUnit.SECONDS);
            cluster.dispatcher().requestJobResult(jobId).get(60, TimeUnit.SECONDS);
        }
    }
}
