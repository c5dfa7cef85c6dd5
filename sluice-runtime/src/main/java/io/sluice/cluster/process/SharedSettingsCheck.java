package io.sluice.cluster.process;

import io.sluice.ha.LeaderSettingsStore;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares a job manager's {@link SharedSettings} with the ones the leading job manager published,
 * and publishes its own when it leads. A difference in a required key stops the start
 * ({@link SharedSettingsMismatchException}); differences in the others are logged in one warning
 * line naming each key and both values.
 *
 * <p>Threading: both methods block on the HA services: call them on the starting command's thread
 * or an I/O executor, never on a main thread.
 */
final class SharedSettingsCheck {
    private static final Logger LOG = LoggerFactory.getLogger(SharedSettingsCheck.class);

    private SharedSettingsCheck() {}

    /**
     * Compares {@code mine} with the current leader's published settings, if any.
     *
     * @return the contender id of the leader compared with, or null when there was none to compare with
     * @throws SharedSettingsMismatchException when a required key differs
     */
    static String againstLeader(LeaderSettingsStore store, String jobManagerId, SharedSettings mine) {
        Optional<LeaderSettingsStore.Published> published;
        try {
            published = store.read();
        } catch (IOException e) {
            LOG.warn("Job manager {} could not compare its settings with the leading job manager's ({}); starting"
                    + " without the check", jobManagerId, e.getMessage());
            return null;
        }
        if (published.isEmpty()) {
            return null;
        }
        String leader = published.get().contenderId();
        List<SharedSettings.Difference> differences = mine.differencesFrom(SharedSettings.published(published.get().settings()));
        List<SharedSettings.Difference> required = differences.stream().filter(SharedSettings.Difference::required).toList();
        if (!required.isEmpty()) {
            throw new SharedSettingsMismatchException("Job manager " + jobManagerId + " does not start: "
                    + describe(required) + " (leader " + leader + "). Every job manager of a cluster must use the same "
                    + required.stream().map(SharedSettings.Difference::key).collect(Collectors.joining(", "))
                    + ": the leader keeps the jobs' jars there, and a job manager with another one could not load them"
                    + " when it takes over. Set the leader's value here, or give this job manager another"
                    + " high-availability.cluster-id if it belongs to another cluster.", required);
        }
        if (!differences.isEmpty()) {
            LOG.warn("Job manager {}: settings differ from the leading job manager's ({}): {}. It starts, but jobs"
                    + " behave differently once it leads (and a submission it forwards may be refused by the leader);"
                    + " set the same values on every job manager.", jobManagerId, leader, describe(differences));
        }
        return leader;
    }

    /** Publishes {@code mine} as the settings of the leader {@code contenderId}; a failure is logged. */
    static void publish(LeaderSettingsStore store, String contenderId, SharedSettings mine) {
        try {
            store.publish(contenderId, mine.values());
        } catch (IOException | RuntimeException e) {
            LOG.warn("The leading job manager {} could not publish its shared settings ({}); job managers that start"
                    + " meanwhile do not compare theirs", contenderId, e.getMessage());
        }
    }

    /** {@code key: this job manager X, the leader Y; ...} */
    static String describe(List<SharedSettings.Difference> differences) {
        return differences.stream().map(SharedSettings.Difference::toString).collect(Collectors.joining("; "));
    }
}
