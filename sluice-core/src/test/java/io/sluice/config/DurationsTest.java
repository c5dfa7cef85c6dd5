package io.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

    @ParameterizedTest
    @CsvSource({
        "500 ms, PT0.5S", "500ms, PT0.5S", "10 s, PT10S", "10s, PT10S", "1 min, PT1M", "2 h, PT2H",
        "1 d, PT24H", "PT1S, PT1S", "pt1m30s, PT1M30S", "0, PT0S", "' 3 MIN ', PT3M"
    })
    void parsesAcceptedForms(String text, String iso) {
        assertThat(Durations.parse(text)).isEqualTo(Duration.parse(iso));
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "500", "10 parsecs", "-1 s", "PT-1S", "1.5 s", "", "ms", "P1X"})
    void rejectsOtherFormsNamingTheTextAndTheExpectedForm(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + text + "'")
                .hasMessageContaining("500 ms, 10 s or 1 min");
    }

    @ParameterizedTest
    @CsvSource({"PT0S, 0 ms", "PT0.1S, 100 ms", "PT1S, 1 s", "PT30S, 30 s", "PT10M, 10 min", "PT2H, 2 h",
        "PT48H, 2 d", "PT1.5S, 1500 ms", "PT0.000000001S, 1 ns"})
    void formatsInTheLargestExactUnitAndParsesBack(String iso, String expected) {
        Duration d = Duration.parse(iso);
        assertThat(Durations.format(d)).isEqualTo(expected);
        assertThat(Durations.parse(Durations.format(d))).isEqualTo(d);
    }

    @ParameterizedTest
    @CsvSource({"PT0S, 0 ms", "PT0.8S, 800 ms", "PT0.999S, 999 ms", "PT1S, 1 s", "PT1.5S, 1.5 s", "PT3.2S, 3.2 s",
        "PT3.25S, 3.3 s", "PT6S, 6 s", "PT1.999S, 2 s", "PT10S, 10 s", "PT12.04S, 12 s", "PT60S, 60 s"})
    void describesForLogLinesInMillisecondsOrTenthsOfSeconds(String iso, String expected) {
        assertThat(Durations.describe(Duration.parse(iso))).isEqualTo(expected);
    }
}
