package io.sluice.testutil;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * What one class logs while this is open, from {@code level} up: the class's logger gets a list appender and that
 * level; {@link #close} restores its level and detaches the appender. For tests that assert what is logged, and at
 * which level. Not thread-safe to open or close concurrently on one class; events may come from any thread.
 */
public final class CapturedLog implements AutoCloseable {
    private final Logger logger;
    private final Level previousLevel;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private CapturedLog(Class<?> type, Level level) {
        this.logger = (Logger) LoggerFactory.getLogger(type);
        this.previousLevel = logger.getLevel();
        appender.start();
        logger.addAppender(appender);
        logger.setLevel(level);
    }

    /** Captures what {@code type} logs at {@code level} and above until closed. */
    public static CapturedLog of(Class<?> type, Level level) {
        return new CapturedLog(type, level);
    }

    /** The events logged so far, oldest first. */
    public List<ILoggingEvent> events() {
        return List.copyOf(appender.list);
    }

    @Override
    public void close() {
        logger.setLevel(previousLevel);
        logger.detachAppender(appender);
    }
}
