package io.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class MemorySizesTest {
    @ParameterizedTest
    @CsvSource({"0, 0", "1048576, 1048576", "64 mb, 67108864", "64mb, 67108864", "64 MiB, 67108864", "1 g, 1073741824",
        "2 GB, 2147483648", "512 kb, 524288", "' 3 m ', 3145728", "100 b, 100", "1 tb, 1099511627776"})
    void parsesBinaryUnits(String text, long bytes) {
        assertThat(MemorySizes.parse(text)).isEqualTo(bytes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "mb", "-1 mb", "1.5 gb", "10 parsecs", "99999999999999 tb"})
    void rejectsOtherForms(String text) {
        assertThatThrownBy(() -> MemorySizes.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @CsvSource({"0, 0", "100, 100", "1024, 1 kb", "134217728, 128 mb", "1610612736, 1536 mb", "1073741824, 1 gb"})
    void formatsInTheLargestExactUnitAndParsesBack(long bytes, String text) {
        assertThat(MemorySizes.format(bytes)).isEqualTo(text);
        assertThat(MemorySizes.parse(MemorySizes.format(bytes))).isEqualTo(bytes);
    }

    @org.junit.jupiter.api.Test
    void aMemoryOptionNamesTheKeyAndTheExpectedForm() {
        Configuration c = new Configuration().setString("m", "lots");
        ConfigOption<Long> option = ConfigOptions.key("m").memoryType().defaultValue(1L);
        assertThatThrownBy(() -> c.get(option)).isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("'lots' for m").hasMessageContaining("64 mb, 1 gb");
    }
}
