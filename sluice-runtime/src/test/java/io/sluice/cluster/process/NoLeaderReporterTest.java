package io.sluice.cluster.process;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sluice.cluster.membership.TestingLeaderRetrieval;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A task manager that starts while no job manager leads says so on the first leader notification,
 * not only after the first report period; the periodic warning stays scheduled every period.
 */
class NoLeaderReporterTest {
    private static final String WHERE = "cluster 'prod' (high-availability.cluster-id) in ZooKeeper zk:2181 under /sluice";

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(NoLeaderReporter.class);
    /** Never runs the periodic report within a test: its period is an hour. */
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
    private final TestingLeaderRetrieval retrieval = new TestingLeaderRetrieval();

    @BeforeEach
    void captureLog() {
        log.start();
        logger.addAppender(log);
        logger.setLevel(Level.INFO); // the test configuration logs WARN and above only
    }

    @AfterEach
    void release() {
        logger.detachAppender(log);
        logger.setLevel(null);
        timer.shutdownNow();
    }

    @Test
    void saysAtOnceThatItWaitsWhenNoJobManagerLeadsAtStart() {
        try (NoLeaderReporter reporter = reporter()) {
            assertThat(lines(Level.INFO)).containsExactly("Task manager tm-1: waiting for a job manager to lead " + WHERE
                    + "; warning every 3600 s while none does");
            assertThat(timer.getQueue()).hasSize(1);
            assertThat(((java.util.concurrent.Delayed) timer.getQueue().peek()).getDelay(TimeUnit.MINUTES))
                    .isBetween(59L, 60L);

            retrieval.setLeader("jobmanager-1");
            assertThat(lines(Level.INFO)).last().isEqualTo("Task manager tm-1: the job manager leader of " + WHERE
                    + " is jobmanager-1");
        }
    }

    @Test
    void saysNothingAboutWaitingWhenAJobManagerLeadsAtStart() {
        retrieval.setLeader("jobmanager-1");
        try (NoLeaderReporter reporter = reporter()) {
            assertThat(lines(Level.INFO)).containsExactly("Task manager tm-1: the job manager leader of " + WHERE
                    + " is jobmanager-1");
        }
    }

    private NoLeaderReporter reporter() {
        return new NoLeaderReporter(retrieval, "Task manager tm-1", WHERE, Duration.ofHours(1), timer);
    }

    private List<String> lines(Level level) {
        return log.list.stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
    }
}
