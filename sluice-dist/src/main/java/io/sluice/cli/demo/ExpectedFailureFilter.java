package io.sluice.cli.demo;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
import io.sluice.taskexecutor.TaskCancelledException;
import java.util.Set;

/**
 * Keeps expected failures off the console: those the demo injects on purpose, and tasks that fail
 * only because a restart cancelled their upstream. The demo reports each restart itself, and a
 * stack trace per failure would bury the progress lines. Attach it to the console appender only;
 * the log file still gets every event.
 */
public final class ExpectedFailureFilter extends Filter<ILoggingEvent> {
    private static final Set<String> EXPECTED = Set.of(
            CountingRun.InjectedFailure.class.getName(),
            TaskCancelledException.class.getName());

    @Override
    public FilterReply decide(ILoggingEvent event) {
        for (IThrowableProxy t = event.getThrowableProxy(); t != null; t = t.getCause()) {
            if (EXPECTED.contains(t.getClassName())) {
                return FilterReply.DENY;
            }
        }
        return FilterReply.NEUTRAL;
    }
}
