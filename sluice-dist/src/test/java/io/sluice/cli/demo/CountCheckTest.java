package io.sluice.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CountCheckTest {
    @Test
    void listsAtMostTenWrongKeysWithExpectedAndActual() {
        Map<Long, Long> expected = new HashMap<>();
        Map<Long, Long> actual = new HashMap<>();
        for (long k = 0; k < 20; k++) {
            expected.put(k, 100L);
            actual.put(k, k < 12 ? 101L : 100L);
        }
        actual.remove(0L);

        CountCheck check = CountCheck.compare(expected, actual);

        assertThat(check.passed()).isFalse();
        assertThat(check.mismatches()).hasSize(12);
        String text = print(check);
        assertThat(text).contains("12 of 20 keys have a wrong final count")
                .contains("key 0: expected 100, actual no count")
                .contains("key 1: expected 100, actual 101")
                .doesNotContain("key 11:")
                .contains("... and 2 more");
    }

    @Test
    void exactCountsPass() {
        CountCheck check = CountCheck.compare(Map.of(0L, 3L, 1L, 2L), Map.of(0L, 3L, 1L, 2L));
        assertThat(check.passed()).isTrue();
        assertThat(print(check)).contains("All 2 keys have exactly the expected count (total 5 records)");
    }

    private static String print(CountCheck check) {
        StringWriter text = new StringWriter();
        check.print(new PrintWriter(text, true));
        return text.toString();
    }
}
