package io.sluice.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessTempFilesTest {
    private static final String BASE = "sluice-test-entries-";

    @TempDir
    Path dir;

    @Test
    void aNameCarriesThePidOfTheProcessThatGaveIt() {
        String name = ProcessTempFiles.prefix(BASE) + "a1b2";
        assertThat(ProcessTempFiles.ownerPid(name, BASE)).hasValue(ProcessHandle.current().pid());
        assertThat(ProcessTempFiles.ownerPid(BASE + "0093be93-a25a-4d74", BASE)).as("no pid: an older name").isEmpty();
        assertThat(ProcessTempFiles.ownerPid(BASE + "-1", BASE)).isEmpty();
        assertThat(ProcessTempFiles.ownerPid("other-12-x", BASE)).isEmpty();
    }

    @Test
    void theEntriesOfAProcessThatNoLongerRunsAreDeletedWithTheirContentOthersAreNot() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        assertThat(gone.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Path leftDirectory = Files.createDirectories(dir.resolve(BASE + gone.pid() + "-1").resolve("nested"));
        Files.write(leftDirectory.resolve("job.jar"), new byte[1024]);
        Path leftFile = Files.write(dir.resolve(BASE + gone.pid() + "-2.tmp"), new byte[10]);
        Path live = Files.createDirectories(dir.resolve(ProcessTempFiles.prefix(BASE) + "3"));
        Files.write(live.resolve("job.jar"), new byte[10]);
        Path older = Files.createDirectories(dir.resolve(BASE + "0093be93-a25a"));
        Path foreign = Files.createDirectories(dir.resolve("something-" + gone.pid() + "-else"));

        ProcessTempFiles.deleteLeftoversOnce(dir, BASE);

        assertThat(dir.resolve(BASE + gone.pid() + "-1")).as("a directory of the ended process, with all in it")
                .doesNotExist();
        assertThat(leftFile).doesNotExist();
        assertThat(live.resolve("job.jar")).as("this live process's").exists();
        assertThat(older).as("a name without a pid").exists();
        assertThat(foreign).as("another name").exists();

        Files.createDirectories(dir.resolve(BASE + gone.pid() + "-4"));
        ProcessTempFiles.deleteLeftoversOnce(dir, BASE);
        assertThat(dir.resolve(BASE + gone.pid() + "-4")).as("once per directory and process: not looked at again")
                .exists();
    }

    @Test
    void aMissingDirectoryHasNothingToDelete() {
        ProcessTempFiles.deleteLeftoversOnce(dir.resolve("missing"), BASE);
        assertThat(dir.resolve("missing")).doesNotExist();
    }
}
