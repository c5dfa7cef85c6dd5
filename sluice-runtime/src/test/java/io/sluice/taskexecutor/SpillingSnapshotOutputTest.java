package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.checkpoint.FramedStateFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spill file's life: in memory up to the threshold, a file framed as a state file beyond it (deleted on
 * close), and the files a killed process left behind deleted by the next process to spill there, not those of
 * live processes.
 */
class SpillingSnapshotOutputTest {
    @TempDir
    Path dir;

    @Test
    void upToTheThresholdTheSnapshotStaysInMemoryBeyondItGoesToAFileThatCloseDeletes() throws Exception {
        try (SpillingSnapshotOutput small = new SpillingSnapshotOutput(100, dir, "small")) {
            small.buffer().write(new byte[100]);
            small.groupWritten();
            small.finish();
            assertThat(small.spilled()).isFalse();
            assertThat(small.bytes()).hasSize(100);
        }
        Path file;
        try (SpillingSnapshotOutput large = new SpillingSnapshotOutput(100, dir, "large")) {
            for (int g = 0; g < 3; g++) {
                large.buffer().write(new byte[80]);
                large.groupWritten();
            }
            large.buffer().writeInt(-1); // the end marker, written after the last drain
            large.finish();
            assertThat(large.spilled()).isTrue();
            file = large.file();
            assertThat(large.length()).as("the payload").isEqualTo(244);
            assertThat(file).as("framed as a state file: header, then payload").hasSize(FramedStateFile.HEADER_BYTES + 244);
            byte[] payload;
            try (var in = FramedStateFile.openPayload(Files.newInputStream(file), file.toString(), 244)) {
                payload = in.readAllBytes(); // the read that reaches the end checks the length and CRC32C
            }
            byte[] expected = new byte[244];
            java.nio.ByteBuffer.wrap(expected, 240, 4).putInt(-1);
            assertThat(payload).isEqualTo(expected);
            assertThat(SpillingSnapshotOutput.ownerPid(file.getFileName().toString()))
                    .hasValue(ProcessHandle.current().pid());
        }
        assertThat(file).doesNotExist();
    }

    @Test
    void theFilesOfAProcessThatNoLongerRunsAreDeletedThoseOfLiveOnesAreNot() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        assertThat(gone.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Path leftover = Files.createFile(dir.resolve(SpillingSnapshotOutput.FILE_PREFIX + gone.pid() + "-1.tmp"));
        Path live = Files.createFile(dir.resolve(SpillingSnapshotOutput.FILE_PREFIX + ProcessHandle.current().pid()
                + "-2.tmp"));
        Path foreign = Files.createFile(dir.resolve("something-else.tmp"));

        SpillingSnapshotOutput.deleteLeftoversOnce(dir);

        assertThat(leftover).doesNotExist();
        assertThat(live).exists();
        assertThat(foreign).exists();
    }
}
