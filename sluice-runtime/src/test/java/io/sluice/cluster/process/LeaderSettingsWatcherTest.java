package io.sluice.cluster.process;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sluice.config.Configuration;
import io.sluice.ha.LeaderSettingsStore;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** A standby compares its settings with each new leader's once they are published, and logs what differs. */
class LeaderSettingsWatcherTest {
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(LeaderSettingsWatcher.class);
    /** Tasks handed to the "delayed" executor, run by the test. */
    private final Deque<Runnable> delayedTasks = new ArrayDeque<>();
    private final List<Optional<LeaderSettingsStore.Published>> answers = new ArrayList<>();
    private int reads;

    private final LeaderSettingsStore store = new LeaderSettingsStore() {
        @Override
        public void publish(String contenderId, Map<String, String> settings) {
        }

        @Override
        public Optional<Published> read() {
            return answers.get(Math.min(reads++, answers.size() - 1));
        }
    };

    @BeforeEach
    void captureLog() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void releaseLog() {
        logger.detachAppender(log);
    }

    private LeaderSettingsWatcher watcher(String alreadyCompared) {
        SharedSettings mine = SharedSettings.of(new Configuration()
                .setString(SharedSettings.STORAGE_DIR, "/mine").setString("rpc.max-message-size", "8388608"));
        return new LeaderSettingsWatcher(store, "jm-2", "own", mine, Runnable::run, delay -> delayedTasks::add,
                alreadyCompared);
    }

    private static Optional<LeaderSettingsStore.Published> record(String leader) {
        return Optional.of(new LeaderSettingsStore.Published(leader, SharedSettings.of(new Configuration()
                .setString(SharedSettings.STORAGE_DIR, "/ha").setString("rpc.max-message-size", "1048576")).values()));
    }

    private List<String> lines(Level level) {
        return log.list.stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void aNewLeaderIsComparedOnceItsSettingsArePublished() {
        answers.add(Optional.empty()); // published just after the grant
        answers.add(record("jm-1"));
        LeaderSettingsWatcher watcher = watcher(null);

        watcher.accept(Optional.of("jm-1"));
        assertThat(log.list).isEmpty();
        assertThat(delayedTasks).hasSize(1);
        delayedTasks.poll().run();

        assertThat(lines(Level.ERROR)).singleElement().asString()
                .contains("high-availability.storage-dir: this job manager /mine, the leader /ha").contains("jm-1");
        assertThat(lines(Level.WARN)).singleElement().asString()
                .contains("rpc.max-message-size: this job manager 8388608, the leader 1048576");

        watcher.accept(Optional.of("jm-1")); // the same leader again: not compared again
        assertThat(reads).isEqualTo(2);
        assertThat(delayedTasks).isEmpty();
    }

    @Test
    void theLeaderComparedAtStartItselfAndNoLeaderAreNotCompared() {
        answers.add(record("jm-1"));
        LeaderSettingsWatcher watcher = watcher("jm-1");
        watcher.accept(Optional.of("jm-1"));
        watcher.accept(Optional.of("own"));
        watcher.accept(Optional.empty());
        assertThat(reads).isZero();
        assertThat(log.list).isEmpty();
    }

    @Test
    void aLeaderThatNeverPublishesIsGivenUpOnAfterTheAttempts() {
        answers.add(Optional.empty());
        LeaderSettingsWatcher watcher = watcher(null);
        watcher.accept(Optional.of("jm-1"));
        while (!delayedTasks.isEmpty()) {
            delayedTasks.poll().run();
        }
        assertThat(reads).isEqualTo(LeaderSettingsWatcher.ATTEMPTS);
        assertThat(lines(Level.ERROR)).isEmpty();
        assertThat(lines(Level.WARN)).isEmpty();
    }
}
