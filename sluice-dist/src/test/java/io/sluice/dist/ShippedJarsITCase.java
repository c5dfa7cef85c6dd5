package io.sluice.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No test code ships: the entries ({@code jar tf}) of the built {@code sluice-core} and
 * {@code sluice-runtime} jars, of {@code sluice.jar} and of every jar in the distribution's
 * {@code lib/} hold no Sluice class that is a test, a test helper or a test job: nothing under a
 * {@code testing}, {@code testutil}, {@code examples} or {@code it} package, no {@code CollectingSink}
 * or {@code ManualClock}, no {@code *Test}, {@code *Tests}, {@code *ITCase}, {@code Testing*} or
 * {@code *TestSupport} class. Test code lives in test sources and test jars (sluice-core's test jar
 * has the fake clock, the collecting sink and the test jobs); the demo has its own job.
 */
class ShippedJarsITCase {
    private static final Set<String> TEST_PACKAGES = Set.of("testing", "testutil", "examples", "it", "chaos");
    private static final Set<String> TEST_HELPERS = Set.of("CollectingSink", "ManualClock", "InjectedFailures");
    private static final Pattern TEST_CLASS = Pattern.compile("Testing.*|.*(Test|Tests|ITCase|TestSupport)");

    @TempDir
    Path dir;

    @Test
    void theBuiltJarsAndTheDistributionsLibCarryNoTestClass() throws Exception {
        String tarball = System.getProperty("sluice.dist.tarball");
        assumeTrue(tarball != null, "run through Maven (mvn verify), which builds the jars and names them");
        List<Path> jars = new ArrayList<>();
        for (String property : List.of("sluice.core.jar", "sluice.runtime.jar", "sluice.jar")) {
            Path jar = Path.of(System.getProperty(property));
            assertThat(jar).as(property + ", built in the package phase").isRegularFile();
            jars.add(jar);
        }
        Process untar = new ProcessBuilder("tar", "xzf", tarball, "-C", dir.toString()).inheritIO().start();
        assertThat(untar.waitFor()).as("tar xzf %s", tarball).isZero();
        try (Stream<Path> lib = Files.list(dir.resolve("sluice-" + System.getProperty("sluice.version") + "/lib"))) {
            lib.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(jars::add);
        }
        assertThat(jars).as("lib/ holds the runtime's jars").hasSizeGreaterThan(10);

        List<String> shipped = new ArrayList<>();
        for (Path jar : jars) {
            for (String entry : entries(jar)) {
                if (isTestClass(entry)) {
                    shipped.add(jar.getFileName() + ": " + entry);
                }
            }
        }

        assertThat(shipped).as("test classes in shipped jars").isEmpty();
    }

    @Test
    void theCheckRecognisesTestClasses() {
        assertThat(List.of("io/sluice/api/sink/CollectingSink.class", "io/sluice/util/ManualClock.class",
                "io/sluice/examples/KeyedCountingJob$ModKey.class", "io/sluice/testing/netns/TestNetwork.class",
                "io/sluice/storage/s3/testing/TcpFaultProxy.class", "io/sluice/testutil/ReverseOrderCloser.class",
                "io/sluice/it/WindowedEventsJob.class", "io/sluice/rest/RestApiITCase.class",
                "io/sluice/jobmaster/JobMasterTest$1.class", "io/sluice/rest/TestingBackend.class"))
                .allMatch(ShippedJarsITCase::isTestClass);
        assertThat(List.of("io/sluice/api/sink/DiscardingSink.class", "io/sluice/util/SystemClock.class",
                "io/sluice/cli/demo/CountingRun$InjectedFailure.class", "io/sluice/cli/client/ListCommand.class",
                "io/sluice/jobmaster/JobMaster.class", "META-INF/MANIFEST.MF", "org/junit/Test.class"))
                .noneMatch(ShippedJarsITCase::isTestClass);
    }

    /** Whether the jar entry {@code entry} is a Sluice class of test code. */
    static boolean isTestClass(String entry) {
        if (!entry.startsWith("io/sluice/") || !entry.endsWith(".class")) {
            return false;
        }
        String[] path = entry.substring(0, entry.length() - ".class".length()).split("/");
        for (int i = 0; i < path.length - 1; i++) {
            if (TEST_PACKAGES.contains(path[i])) {
                return true;
            }
        }
        String outerClass = path[path.length - 1].split("\\$")[0];
        return TEST_HELPERS.contains(outerClass) || TEST_CLASS.matcher(outerClass).matches();
    }

    private static List<String> entries(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            return Collections.list(file.entries()).stream().map(e -> e.getName()).toList();
        }
    }
}
