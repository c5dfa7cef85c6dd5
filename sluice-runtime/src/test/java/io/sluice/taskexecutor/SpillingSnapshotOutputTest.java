package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.checkpoint.FramedStateFile;
import io.sluice.util.DirectoryClaims;
import java.nio.file.Files;
import java.nio.file.Path;
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
            assertThat(file.getFileName().toString()).as("named after this process's claim on the directory")
                    .startsWith(SpillingSnapshotOutput.FILE_PREFIX + DirectoryClaims.token(dir) + "-");
        }
        assertThat(file).doesNotExist();
    }

    @Test
    void theFilesOfAProcessThatNoLongerRunsAreDeletedThoseOfLiveOnesAreNot() throws Exception {
        String ended = "1-0c0c0c0c";
        Files.createFile(dir.resolve(".owner-" + ended + ".lock")); // a claim nobody holds: its process ended
        Path leftover = Files.createFile(dir.resolve(SpillingSnapshotOutput.FILE_PREFIX + ended + "-1.tmp"));
        Path live = Files.createFile(dir.resolve(SpillingSnapshotOutput.FILE_PREFIX + DirectoryClaims.token(dir)
                + "-2.tmp"));
        Path foreign = Files.createFile(dir.resolve("something-else.tmp"));

        SpillingSnapshotOutput.deleteLeftoversOnce(dir);

        assertThat(leftover).doesNotExist();
        assertThat(live).exists();
        assertThat(foreign).exists();
    }
}
