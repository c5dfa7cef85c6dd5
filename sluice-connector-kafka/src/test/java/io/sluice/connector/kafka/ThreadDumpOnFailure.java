package io.sluice.connector.kafka;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Prints every thread's stack to standard output when a test fails, before the failure propagates (and so
 * before the test's clusters and clients are closed): a wait that timed out then shows what the waited-for
 * threads were doing (a commit thread blocked in a producer call, a task thread in a checkpoint). Test code.
 */
final class ThreadDumpOnFailure implements TestExecutionExceptionHandler {
    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        StringBuilder dump = new StringBuilder("Threads when " + context.getDisplayName() + " failed (" + failure + "):\n");
        for (ThreadInfo t : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            dump.append('"').append(t.getThreadName()).append("\" ").append(t.getThreadState());
            if (t.getLockName() != null) {
                dump.append(" on ").append(t.getLockName());
            }
            if (t.getLockOwnerName() != null) {
                dump.append(" owned by \"").append(t.getLockOwnerName()).append('"');
            }
            dump.append('\n');
            for (StackTraceElement e : t.getStackTrace()) {
                dump.append("    at ").append(e).append('\n');
            }
        }
        System.out.println(dump);
        throw failure;
    }
}
