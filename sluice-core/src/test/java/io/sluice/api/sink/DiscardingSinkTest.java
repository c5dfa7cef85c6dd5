package io.sluice.api.sink;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DiscardingSinkTest {

    @Test
    void countsWhatItDrops() {
        DiscardingSink<Long> sink = new DiscardingSink<>();
        for (long i = 0; i < 1000; i++) {
            sink.invoke(i);
        }

        assertThat(sink.count()).isEqualTo(1000);
    }
}
