package io.sluice.rpc.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RateLimitedLogTest {
    @Test
    void logsOncePerIntervalPerKeyAndCountsTheRest() {
        ManualClock clock = new ManualClock();
        List<String> lines = new ArrayList<>();
        RateLimitedLog log = new RateLimitedLog(lines::add, clock, Duration.ofSeconds(10));

        log.warn("a", "first");
        log.warn("a", "second");
        log.warn("b", "other target");
        clock.advance(Duration.ofSeconds(5));
        log.warn("a", "third");
        clock.advance(Duration.ofMillis(5001));
        log.warn("a", "fourth");

        assertThat(lines).containsExactly("first", "other target",
                "fourth (2 similar messages left out in the last 10 s)");
    }
}
