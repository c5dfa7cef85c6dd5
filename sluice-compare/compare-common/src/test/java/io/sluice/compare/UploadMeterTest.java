package io.sluice.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UploadMeterTest {

    @Test
    void countsEachNewFileOnceAndIgnoresDeletedOnes(@TempDir Path dir) throws Exception {
        UploadMeter meter = new UploadMeter(dir.resolve("checkpoints"));
        assertThat(meter.newBytes()).as("no directory yet").isZero();
        Path shared = Files.createDirectories(dir.resolve("checkpoints/job/shared"));
        Files.write(shared.resolve("000001.sst"), new byte[1000]);
        meter.baseline();
        assertThat(meter.newBytes()).isZero();

        Files.write(shared.resolve("000002.sst"), new byte[300]);
        Path chk = Files.createDirectories(dir.resolve("checkpoints/job/chk-2"));
        Files.write(chk.resolve("_metadata"), new byte[20]);
        Files.delete(shared.resolve("000001.sst"));
        assertThat(meter.newBytes()).as("the new table file and the metadata").isEqualTo(320);
        assertThat(meter.newBytes()).isZero();
        assertThat(UploadMeter.sizeOf(dir.resolve("checkpoints"))).isEqualTo(320);
        assertThat(UploadMeter.sizeOf(dir.resolve("nowhere"))).isZero();
    }
}
