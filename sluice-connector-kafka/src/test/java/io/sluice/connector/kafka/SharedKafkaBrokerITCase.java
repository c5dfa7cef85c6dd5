package io.sluice.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.File;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Utils;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The shared test broker ends with the test run, and a broker never ends the test JVM. In CI Failsafe once
 * reported "Error occurred in starting fork" after all tests of this module had passed: the shared broker
 * was closed in a JVM shutdown hook, while Kafka's own shutdown hook deleted its directories; the broker
 * found its log directory gone and called {@code Exit.halt(1)}, and the fork ended with status 1.
 */
class SharedKafkaBrokerITCase {

    /** Two test classes of a run, as this module's ITCases use the shared broker; run by a nested launcher below. */
    @ExtendWith(SharedKafkaBroker.class)
    static class FirstUser {
        static final List<KafkaBroker> seen = new ArrayList<>();

        @BeforeAll
        static void startBroker(KafkaBroker shared) {
            seen.add(shared);
        }

        @Test
        void writesAndReads(KafkaBroker shared) {
            seen.add(shared);
            String topic = KafkaBroker.unique("shared-first");
            try {
                shared.createTopic(topic, 1);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            shared.produce(topic, List.of("a"));
            assertThat(shared.readAll(topic, "read_committed")).containsExactly("a");
        }
    }

    @ExtendWith(SharedKafkaBroker.class)
    static class SecondUser {
        @BeforeAll
        static void startBroker(KafkaBroker shared) {
            FirstUser.seen.add(shared);
        }

        @Test
        void isServed(KafkaBroker shared) {
            assertThat(shared.readAll("warm-up", "read_committed")).containsExactly("ready");
        }
    }

    @Test
    void theSharedBrokerIsClosedByJUnitWhenTheTestRunEndsBeforeTheJvmExits() throws Exception {
        FirstUser.seen.clear();
        LauncherDiscoveryRequest run = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(FirstUser.class), selectClass(SecondUser.class))
                .filters(org.junit.platform.launcher.EngineFilter.includeEngines("junit-jupiter")).build();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(run, summary);

        TestExecutionSummary s = summary.getSummary();
        assertThat(s.getFailures().stream().map(f -> f.getTestIdentifier().getDisplayName() + ": " + f.getException())
                .toList()).as("failures of the nested run").isEmpty();
        assertThat(s.getTestsSucceededCount()).isEqualTo(2);
        assertThat(FirstUser.seen).as("both classes, both hooks: one broker").hasSize(3)
                .allSatisfy(b -> assertThat(b).isSameAs(FirstUser.seen.get(0)));
        KafkaBroker broker = FirstUser.seen.get(0);
        // The run is over (the launcher returned): the broker is closed already, not left to a JVM shutdown hook.
        assertThat(Path.of(broker.cluster().nodes().baseDirectory())).as("its directories, deleted by its close")
                .doesNotExist();
        String bootstrap = broker.bootstrapServers().split(",")[0];
        int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
        assertThatThrownBy(() -> new Socket("localhost", port).close()).as("its listener, closed")
                .isInstanceOf(ConnectException.class);
    }

    @Test
    void aBrokerWhoseDirectoriesAreDeletedUnderItDoesNotEndTheTestJvm() throws Exception {
        KafkaBrokerExitTrap.drain();
        // The broker notices at its next high-watermark checkpoint (every 100 ms here).
        KafkaBroker broker = KafkaBroker.start(Map.of("replica.high.watermark.checkpoint.interval.ms", "100"));
        try {
            assertThat(KafkaBrokerExitTrap.armed()).isTrue();
            String baseDirectory = broker.cluster().nodes().baseDirectory();
            // What Kafka's delete-temp-file shutdown hook did at JVM exit while the shared broker still ran.
            // Without the trap the broker's Exit.halt(1) would end this JVM, and Failsafe would report a
            // fork error instead of this test's result.
            List<KafkaBrokerExitTrap.Request> requests = new ArrayList<>();
            Awaitility.await("Kafka to ask for a halt").atMost(Duration.ofSeconds(60)).until(() -> {
                deleteWhileTheBrokerWrites(new File(baseDirectory));
                requests.addAll(KafkaBrokerExitTrap.drain());
                return !requests.isEmpty();
            });
            assertThat(requests.get(0).kind()).as(requests.toString()).isEqualTo("halt");
            assertThat(requests.get(0).status()).as(requests.toString()).isEqualTo(1);
        } finally {
            try {
                broker.close();
            } catch (Exception expected) {
                // its fault handler saw the failed log directory; the broker is closed all the same
            }
            KafkaBrokerExitTrap.drain(); // requests of its failing shutdown belong to this test, not to the class
        }
    }

    /**
     * Deletes the running broker's directory tree as far as it can: the broker may write a new file into a
     * directory between the walk's deletion of its files and of the directory itself (the tree is then not
     * empty, as in a CI run); the next round of the wait deletes again.
     */
    private static void deleteWhileTheBrokerWrites(File directory) throws IOException {
        try {
            Utils.delete(directory);
        } catch (DirectoryNotEmptyException e) {
            // a file written meanwhile; deleted in the next round
        }
    }
}
