package io.sluice.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Temporary entries named by the claim token of their process, with other processes as lock files nobody holds. */
class ProcessTempFilesTest {
    private static final String BASE = "sluice-test-entries-";

    @TempDir
    Path dir;

    @Test
    void aNameCarriesTheClaimTokenOfTheProcessThatGaveIt() throws Exception {
        String prefix = ProcessTempFiles.prefix(dir, BASE);
        String token = DirectoryClaims.token(dir);
        assertThat(prefix).isEqualTo(BASE + token + "-");
        assertThat(token).startsWith(ProcessHandle.current().pid() + "-");
        assertThat(dir.resolve(".owner-" + token + ".lock")).as("the claim, held while this process runs").exists();
    }

    @Test
    void theEntriesOfAProcessThatNoLongerRunsAreDeletedWithTheirContentOthersAreNot() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        assertThat(gone.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String ended = gone.pid() + "-0e0e0e0e";
        Files.createFile(dir.resolve(".owner-" + ended + ".lock")); // its lock went with it
        Path leftDirectory = Files.createDirectories(dir.resolve(BASE + ended + "-1").resolve("nested"));
        Files.write(leftDirectory.resolve("job.jar"), new byte[1024]);
        Path leftFile = Files.write(dir.resolve(BASE + ended + "-2.tmp"), new byte[10]);
        Path live = Files.createDirectories(dir.resolve(ProcessTempFiles.prefix(dir, BASE) + "3"));
        Files.write(live.resolve("job.jar"), new byte[10]);
        Path pidOnly = Files.createDirectories(dir.resolve(BASE + gone.pid() + "-4"));
        Path foreign = Files.createDirectories(dir.resolve("something-" + ended + "-else"));

        ProcessTempFiles.deleteLeftoversOnce(dir, BASE);

        assertThat(dir.resolve(BASE + ended + "-1")).as("a directory of the ended process, with all in it")
                .doesNotExist();
        assertThat(leftFile).doesNotExist();
        assertThat(live.resolve("job.jar")).as("this live process's").exists();
        assertThat(pidOnly).as("a name of the pid-only kind: its owner cannot be told").exists();
        assertThat(foreign).as("another name").exists();

        String endedLater = gone.pid() + "-1f1f1f1f";
        Files.createFile(dir.resolve(".owner-" + endedLater + ".lock"));
        Path later = Files.createDirectories(dir.resolve(BASE + endedLater + "-5"));
        ProcessTempFiles.deleteLeftoversOnce(dir, BASE);
        assertThat(later).as("once per directory and process: not looked at again").exists();
    }

    /**
     * A process of another container that shares the directory but not the pid namespace: its pid names no
     * process this one can see, but it runs and holds its claim. Its entries were deleted when a pid that no
     * visible process had counted as ended.
     */
    @Test
    void theEntriesOfALiveProcessWhosePidThisProcessCannotSeeAreKept() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        assertThat(gone.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String unseen = gone.pid() + "-2a2a2a2a";
        Path entry = Files.createDirectories(dir.resolve(BASE + unseen + "-1"));
        Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), ClaimHolder.class.getName(), "lock",
                dir.resolve(".owner-" + unseen + ".lock").toString()).redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                    StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("locked");

            ProcessTempFiles.deleteLeftoversOnce(dir, BASE);

            assertThat(entry).as("a live process's, whatever its pid").exists();
        } finally {
            holder.destroyForcibly();
            holder.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aMissingDirectoryHasNothingToDelete() {
        ProcessTempFiles.deleteLeftoversOnce(dir.resolve("missing"), BASE);
        assertThat(dir.resolve("missing")).doesNotExist();
    }
}
