package io.sluice.jar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Entry points and the graph a program's {@code main} builds, and every way a program can fail to build one. */
class PackagedProgramTest {
    @TempDir
    Path dir;

    private JobGraph capture(Path jar, String entryClass, List<String> args, Map<String, String> config, Duration timeout)
            throws Exception {
        PackagedProgram program = PackagedProgram.of(jar, jar.getFileName().toString(), entryClass);
        Configuration c = new Configuration(config);
        try (ChildFirstClassLoader loader = new ChildFirstClassLoader("test", new URL[] {jar.toUri().toURL()},
                PackagedProgramTest.class.getClassLoader())) {
            CompletableFuture<JobGraph> graph = program.captureJobGraph(loader, args, c, JobId.generate(), timeout);
            try {
                return graph.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw (Exception) e.getCause();
            }
        }
    }

    private Path programJar(String name, String mainClass, String body) {
        String source = """
                package userjob;
                import io.sluice.api.StreamExecutionEnvironment;
                public final class Program {
                    public static void main(String[] args) throws Exception {
                        %s
                    }
                }
                """.formatted(body);
        return TestJars.jar(dir, name, mainClass, Map.of("userjob.Program", source));
    }

    @Test
    void theManifestsMainClassBuildsTheGraphWithTheRunsParallelismAndTheCodeAfterExecuteDoesNotRun() throws Exception {
        Path jar = TestJars.countingProgramJar(dir);
        JobId id = JobId.generate();
        PackagedProgram program = PackagedProgram.of(jar, "counting.jar", null);
        assertThat(program.entryClass()).isEqualTo("userjob.CountingProgram");
        try (ChildFirstClassLoader loader = new ChildFirstClassLoader("t", new URL[] {jar.toUri().toURL()},
                getClass().getClassLoader())) {
            JobGraph graph = program.captureJobGraph(loader, List.of("--records", "10", "--output", dir.toString()),
                    new Configuration(Map.of("pipeline.parallelism", "3")), id, Duration.ofSeconds(30)).get(30, TimeUnit.SECONDS);
            assertThat(graph.jobId()).isEqualTo(id);
            assertThat(graph.name()).isEqualTo("counting program");
            assertThat(graph.vertices()).allSatisfy(v -> assertThat(v.parallelism()).isEqualTo(3));
        }
    }

    @Test
    void aJarWithoutMainClassNeedsAnExplicitClass() {
        Path jar = programJar("nomain.jar", null, "");
        assertThatThrownBy(() -> PackagedProgram.of(jar, "nomain.jar", null))
                .isInstanceOf(JarException.class).hasMessageContaining("no Main-Class").hasMessageContaining("--class")
                .satisfies(e -> assertThat(((JarException) e).kind()).isEqualTo(JarException.Kind.INVALID));
    }

    @Test
    void aClassNotInTheJarIsNamed() {
        Path jar = programJar("p.jar", "userjob.Program", "");
        assertThatThrownBy(() -> capture(jar, "userjob.Missing", List.of(), Map.of(), Duration.ofSeconds(30)))
                .isInstanceOf(JarException.class).hasMessageContaining("userjob.Missing is not in the jar p.jar");
    }

    @Test
    void aMainThatThrowsIsReportedWithTheUsersException() {
        Path jar = programJar("p.jar", "userjob.Program", "throw new IllegalArgumentException(\"bad --input\");");
        assertThatThrownBy(() -> capture(jar, null, List.of(), Map.of(), Duration.ofSeconds(30)))
                .isInstanceOf(JarException.class)
                .hasMessageContaining("The main method of userjob.Program (jar p.jar) threw")
                .hasMessageContaining("bad --input")
                .satisfies(e -> assertThat(((JarException) e).kind()).isEqualTo(JarException.Kind.PROGRAM_FAILED));
    }

    @Test
    void aMainThatNeverCallsExecuteBuildsNoJob() {
        Path jar = programJar("p.jar", "userjob.Program", "StreamExecutionEnvironment.create();");
        assertThatThrownBy(() -> capture(jar, null, List.of(), Map.of(), Duration.ofSeconds(30)))
                .isInstanceOf(JarException.class).hasMessageContaining("returned without calling execute(...)");
    }

    @Test
    void aMainThatHangsIsInterruptedAfterTheTimeout() {
        Path jar = programJar("p.jar", "userjob.Program", "new java.util.concurrent.CountDownLatch(1).await();");
        assertThatThrownBy(() -> capture(jar, null, List.of(), Map.of(), Duration.ofMillis(300)))
                .isInstanceOf(JarException.class).hasMessageContaining("did not call execute(...) within");
    }

    @Test
    void aFileThatIsNotAJarIsRejected() throws Exception {
        Path notAJar = Files.writeString(dir.resolve("x.jar"), "not a zip");
        assertThatThrownBy(() -> PackagedProgram.of(notAJar, "x.jar", null))
                .isInstanceOf(JarException.class).hasMessageContaining("Could not read the jar x.jar");
    }

    @Test
    void classesOfTheRuntimeComeFromTheParentAndTheJobsOwnFromTheJar() throws Exception {
        Path jar = TestJars.countingProgramJar(dir);
        try (ChildFirstClassLoader loader = new ChildFirstClassLoader("t", new URL[] {jar.toUri().toURL()},
                getClass().getClassLoader())) {
            assertThat(loader.loadClass("io.sluice.api.StreamExecutionEnvironment").getClassLoader())
                    .isSameAs(getClass().getClassLoader());
            assertThat(loader.loadClass("userjob.CountingProgram").getClassLoader()).isSameAs(loader);
        }
    }
}
