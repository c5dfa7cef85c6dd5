package io.sluice.security.tls;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sluice.util.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Failed handshakes are logged at most once per interval, the next line counting those left out. */
class RefusalLogTest {
    @Test
    void logsOncePerIntervalAndCountsTheRest() {
        Logger logger = (Logger) LoggerFactory.getLogger(RefusalLog.class);
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        logger.addAppender(events);
        try {
            ManualClock clock = new ManualClock();
            RefusalLog log = new RefusalLog(clock, Duration.ofSeconds(10));
            for (int i = 0; i < 5; i++) {
                log.warn("refused " + i);
            }
            clock.advance(Duration.ofSeconds(10));
            log.warn("refused 5");
            assertThat(events.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly("refused 0",
                    "refused 5 (4 more failed TLS handshakes in the last 10 s not logged)");
        } finally {
            logger.detachAppender(events);
        }
    }
}
