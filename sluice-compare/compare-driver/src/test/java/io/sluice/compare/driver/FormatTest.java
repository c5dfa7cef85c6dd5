package io.sluice.compare.driver;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FormatTest {

    @Test
    void valuesKeepAboutThreeSignificantDigitsAndWholeNumbersExact() {
        assertThat(Format.value(46_712_345.67)).isEqualTo("46,712,346");
        assertThat(Format.value(1234.0)).isEqualTo("1,234");
        assertThat(Format.value(206.34)).isEqualTo("206");
        assertThat(Format.value(46.73)).isEqualTo("46.7");
        assertThat(Format.value(5.214)).isEqualTo("5.21");
        assertThat(Format.value(0.04263)).isEqualTo("0.0426");
        assertThat(Format.value(0.5)).isEqualTo("0.5");
        assertThat(Format.value(5.0)).isEqualTo("5");
        assertThat(Format.value(0.0)).isEqualTo("0");
    }

    @Test
    void missingAndNanAreSpelledOut() {
        assertThat(Format.value(null)).isEqualTo("missing");
        assertThat(Format.value(Double.NaN)).isEqualTo("n/a");
    }

    @Test
    void ratiosAsTimesWithTwoSignificantDigitsBelowOne() {
        assertThat(Format.ratio(1.0, 20.0)).isEqualTo("0.05x");
        assertThat(Format.ratio(1.0, 2.0)).isEqualTo("0.50x");
        assertThat(Format.ratio(0.0426, 100.0)).isEqualTo("0.00043x");
        assertThat(Format.ratio(0.13, 1.0)).isEqualTo("0.13x");
        assertThat(Format.ratio(2.6, 1.0)).isEqualTo("2.60x");
        assertThat(Format.ratio(1.0, 1.0)).isEqualTo("1.00x");
        assertThat(Format.ratio(0.999, 1.0)).isEqualTo("1.00x");
        assertThat(Format.ratio(14.23, 1.0)).isEqualTo("14.2x");
        assertThat(Format.ratio(2500.0, 1.0)).isEqualTo("2,500x");
        assertThat(Format.ratio(0.0, 5.0)).isEqualTo("0x");
    }

    @Test
    void ratioAgainstZeroIsADashAndMissingOrNanSideIsSaid() {
        assertThat(Format.ratio(3.0, 0.0)).isEqualTo("—");
        assertThat(Format.ratio(0.0, 0.0)).isEqualTo("—");
        assertThat(Format.ratio(null, 1.0)).isEqualTo("missing");
        assertThat(Format.ratio(1.0, null)).isEqualTo("missing");
        assertThat(Format.ratio(Double.NaN, 1.0)).isEqualTo("n/a");
    }
}
