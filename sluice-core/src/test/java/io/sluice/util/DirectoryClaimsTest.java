package io.sluice.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Claims on a shared working directory, with a second JVM as the other process and SIGKILL as its end. */
class DirectoryClaimsTest {
    private static final String BASE = "task-";

    @TempDir
    Path dir;

    @Test
    void aTokenNamesThisProcessAndItsLockFileStaysWhileItRuns() throws Exception {
        String token = DirectoryClaims.token(dir);
        assertThat(token).startsWith(ProcessHandle.current().pid() + "-");
        assertThat(DirectoryClaims.token(dir)).as("one claim per directory and process").isEqualTo(token);
        assertThat(dir.resolve(".owner-" + token + ".lock")).exists();
        Path own = Files.createDirectories(dir.resolve(BASE + token + "-count_1_2-a"));

        DirectoryClaims.deleteLeftovers(dir, BASE);
        assertThat(own).as("this live process's").exists();
        assertThat(dir.resolve(".owner-" + token + ".lock")).exists();
    }

    @Test
    void theEntriesOfAnotherProcessAreKeptWhileItRunsAndDeletedOnceItWasKilled() throws Exception {
        Process other = startClaimHolder();
        try {
            String token = tokenOf(other);
            assertThat(token).startsWith(other.pid() + "-");
            Path theirs = Files.createDirectories(dir.resolve(BASE + token + "-count_1_2-b").resolve("nested"));
            Files.write(theirs.resolve("000042.sst"), new byte[4096]);
            Path otherName = Files.createDirectories(dir.resolve("local-recovery"));
            Path olderName = Files.createDirectories(dir.resolve(BASE + "count_1_2-0093be93-a25a"));

            DirectoryClaims.deleteLeftovers(dir, BASE);
            assertThat(theirs).as("a live process's, although in another JVM").exists();

            other.destroyForcibly(); // SIGKILL: it deletes nothing, its lock goes with it
            assertThat(other.waitFor(30, TimeUnit.SECONDS)).isTrue();
            DirectoryClaims.deleteLeftovers(dir, BASE);
            assertThat(dir.resolve(BASE + token + "-count_1_2-b")).as("the killed process's, with all in it")
                    .doesNotExist();
            assertThat(dir.resolve(".owner-" + token + ".lock")).as("its lock file").doesNotExist();
            assertThat(otherName).as("another name").exists();
            assertThat(olderName).as("a name without a token").exists();
        } finally {
            other.destroyForcibly();
            other.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /**
     * A claim this process holds but that this copy of the class does not know: another class loader's copy, or a
     * claim a concurrent {@link DirectoryClaims#token} has renamed into place but not yet recorded. Opening its lock
     * file to try the lock, and closing that channel, would release the process's lock (POSIX: closing any
     * descriptor of a file drops all of the process's locks on it), and the next sweep of another process would
     * delete a live process's directories.
     */
    @Test
    void aClaimOfThisProcessThatThisCopyDoesNotKnowSurvivesASweepHereAndThenOneOfAnotherProcess() throws Exception {
        URL[] classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(DirectoryClaimsTest::url).toArray(URL[]::new);
        try (URLClassLoader copy = new URLClassLoader(classPath, ClassLoader.getPlatformClassLoader())) {
            Class<?> otherCopy = copy.loadClass(DirectoryClaims.class.getName());
            assertThat(otherCopy).isNotSameAs(DirectoryClaims.class);
            String token = (String) otherCopy.getMethod("token", Path.class).invoke(null, dir);
            Path entry = Files.createDirectories(dir.resolve(BASE + token + "-count_1_2-d"));

            DirectoryClaims.deleteLeftovers(dir, BASE);
            Process sweeper = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), LeftoverSweeper.class.getName(), dir.toString(), BASE)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).redirectOutput(ProcessBuilder.Redirect.INHERIT)
                    .start();
            assertThat(sweeper.waitFor(60, TimeUnit.SECONDS)).as("the other process's sweep ended").isTrue();
            assertThat(sweeper.exitValue()).isZero();

            assertThat(entry).as("this live process's, after a sweep here and one in another process").exists();
            assertThat(dir.resolve(".owner-" + token + ".lock")).exists();
        }
    }

    /**
     * A process of another pid namespace (another container sharing the directory) names itself by its pid there: 1
     * here, where pid 1 is another, live process. Its claim holds while it runs, whatever runs under that pid here,
     * and its entries go once it ended. Needs {@code unshare --pid} (root); skipped where that is refused.
     */
    @Test
    void aProcessOfAnotherPidNamespaceKeepsItsEntriesWhileItRunsAndLosesThemOnceItEnded() throws Exception {
        assumeTrue(canUnsharePidNamespace(), "unshare --pid is not available or not permitted here");
        // --kill-child: the JVM in the new namespace dies with unshare if the test kills that
        Process other = startClaimHolder("unshare", "--pid", "--fork", "--kill-child=SIGKILL");
        try {
            String token = tokenOf(other);
            assertThat(token).as("pid 1 of its own namespace").startsWith("1-");
            Path theirs = Files.createDirectories(dir.resolve(BASE + token + "-count_1_2-g"));

            DirectoryClaims.deleteLeftovers(dir, BASE);
            assertThat(theirs).as("a live process's of another pid namespace").exists();

            other.getOutputStream().close(); // its input ends: it exits, and its lock goes with it
            assertThat(other.waitFor(30, TimeUnit.SECONDS)).isTrue();
            DirectoryClaims.deleteLeftovers(dir, BASE);
            assertThat(theirs).as("the ended process's").doesNotExist();
            assertThat(dir.resolve(".owner-" + token + ".lock")).as("its lock file").doesNotExist();
        } finally {
            other.destroyForcibly();
            other.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** {@link ClaimHolder} claiming {@link #dir} in another JVM, started through {@code launcher} if any. */
    private Process startClaimHolder(String... launcher) throws java.io.IOException {
        java.util.List<String> command = new java.util.ArrayList<>(Arrays.asList(launcher));
        command.addAll(java.util.List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), ClaimHolder.class.getName(), dir.toString()));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** The token {@link ClaimHolder} printed as its first line. */
    private static String tokenOf(Process holder) throws java.io.IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertThat(line).as("the other process's first line").startsWith("token ");
        return line.substring("token ".length());
    }

    private static boolean canUnsharePidNamespace() throws InterruptedException {
        try {
            Process p = new ProcessBuilder("unshare", "--pid", "--fork", "--kill-child=SIGKILL", "true")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (java.io.IOException e) {
            return false; // no unshare
        }
    }

    /**
     * Two tasks of one process starting together sweep the same ended owners: they take turns, so neither sees the
     * other's lock as an overlapping lock (which was logged as "locked by this process under another process's
     * token", its entries kept by that thread and its channel held open for the process's life).
     */
    @Test
    void sweepsOfOneProcessAtOnceTakeTurnsAndDeleteEveryEndedOwnersEntries() throws Exception {
        int owners = 200;
        int threads = 4;
        for (int i = 0; i < owners; i++) {
            String ended = "99999999-" + i;
            Files.createFile(dir.resolve(".owner-" + ended + ".lock")); // nobody holds it: ended
            Files.createDirectories(dir.resolve(BASE + ended + "-count_1_2-e"));
        }
        int keptOpenBefore = DirectoryClaims.channelsKeptOpen();
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService sweepers = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> sweeps = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                sweeps.add(sweepers.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    DirectoryClaims.deleteLeftovers(dir, BASE);
                    return null;
                }));
            }
            for (Future<?> sweep : sweeps) {
                sweep.get(60, TimeUnit.SECONDS);
            }
        } finally {
            sweepers.shutdownNow();
        }

        assertThat(DirectoryClaims.channelsKeptOpen() - keptOpenBefore)
                .as("lock files a sweep took for this process's own (an overlapping lock)").isZero();
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left.map(p -> p.getFileName().toString()).toList()).as("what the ended owners left").isEmpty();
        }
    }

    @Test
    void anEndedOwnersLockFileStaysUntilTheEntriesOfEachOfItsBasesAreSwept() throws Exception {
        String ended = "1-0d0d0d0d";
        Path lockFile = Files.createFile(dir.resolve(".owner-" + ended + ".lock")); // nobody holds it
        Path task = Files.createDirectories(dir.resolve(BASE + ended + "-count_1_2-e"));
        Path jars = Files.createDirectories(dir.resolve("sluice-job-jars-" + ended + "-f"));

        DirectoryClaims.deleteLeftovers(dir, BASE);
        assertThat(task).doesNotExist();
        assertThat(jars).as("another base's, swept by its own").exists();
        assertThat(lockFile).as("kept for that sweep").exists();

        DirectoryClaims.deleteLeftovers(dir, "sluice-job-jars-");
        assertThat(jars).doesNotExist();
        assertThat(lockFile).as("nothing of that owner left").doesNotExist();
    }

    @Test
    void aLockFileBeingMadeIsNotLookedAtAndAMissingDirectoryHasNothingToDelete() throws Exception {
        // Its maker may not hold its lock yet: taking the lock and deleting the file would break the claim.
        Path making = Files.write(dir.resolve(".making-1-dead.lock"), new byte[0]);
        Path entry = Files.createDirectories(dir.resolve(BASE + "1-dead-count_1_2-c"));
        DirectoryClaims.deleteLeftovers(dir, BASE);
        assertThat(making).exists();
        assertThat(entry).exists();
        DirectoryClaims.deleteLeftovers(dir.resolve("missing"), BASE);
        assertThat(dir.resolve("missing")).doesNotExist();
    }

    private static URL url(String classPathEntry) {
        try {
            return Path.of(classPathEntry).toUri().toURL();
        } catch (MalformedURLException e) {
            throw new UncheckedIOException(e);
        }
    }
}
