package io.sluice.compare.driver;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SmokeSystemsTest {
    private static final Path ROOT = DriverArgs.findRoot(Path.of("").toAbsolutePath());

    @Test
    void unsetRunsSluiceAndTheNewestFlink() {
        assertThat(SmokeSystems.parse(null, ROOT)).containsExactly(SystemUnderTest.SLUICE, SystemUnderTest.FLINK_2_3);
        assertThat(SmokeSystems.parse(" ", ROOT)).containsExactly(SystemUnderTest.SLUICE, SystemUnderTest.FLINK_2_3);
    }

    @Test
    void allRunsEverySystem() {
        assertThat(SmokeSystems.parse("all", ROOT)).isEqualTo(SystemUnderTest.ALL);
    }

    @Test
    void aListRunsThoseInTheDriversOrder() {
        assertThat(SmokeSystems.parse("flink-1.14.6,sluice", ROOT))
                .containsExactly(SystemUnderTest.SLUICE, SystemUnderTest.FLINK_1_14);
    }

    @Test
    void anUnknownSystemIsRefusedWithThePropertyNamed() {
        assertThatThrownBy(() -> SmokeSystems.parse("sluice,flink-9", ROOT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-Dcompare.smoke.systems=sluice,flink-9")
                .hasMessageContaining("Unknown system 'flink-9'");
    }
}
