package io.sluice.cli.demo;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.FileAppender;
import java.util.Iterator;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/** Finds where the logging configuration writes Sluice's log, so the CLI can point the user there. */
final class LogFile {
    private LogFile() {}

    /** The file of the first file appender on the {@code io.sluice} logger or the root logger, if any. */
    static Optional<String> location() {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return Optional.empty();
        }
        for (String name : new String[] {"io.sluice", Logger.ROOT_LOGGER_NAME}) {
            Iterator<Appender<ILoggingEvent>> appenders = context.getLogger(name).iteratorForAppenders();
            while (appenders.hasNext()) {
                if (appenders.next() instanceof FileAppender<ILoggingEvent> file && file.getFile() != null) {
                    return Optional.of(file.getFile());
                }
            }
        }
        return Optional.empty();
    }
}
