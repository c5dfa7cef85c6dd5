package io.sluice.ha;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;

/**
 * Where the leading job manager publishes the settings every job manager of its cluster should share
 * (see {@code io.sluice.cluster.process.SharedSettings}), so that a job manager that starts, or a
 * standby, can compare its own with the leader's and say which differ. One record per cluster,
 * replaced by each new leader.
 *
 * <p>Threading: thread-safe; both methods block on the HA storage and may only be called on an I/O
 * executor or a command's own thread (never a component main thread).
 */
public interface LeaderSettingsStore {

    /** The settings a leader published, under its contender id in the dispatcher election. */
    record Published(String contenderId, Map<String, String> settings) {
        public Published {
            settings = Map.copyOf(settings);
        }
    }

    /** Replaces the record with {@code settings} of the leader {@code contenderId}. */
    void publish(String contenderId, Map<String, String> settings) throws IOException;

    /**
     * The record of the job manager that leads now, or empty when none leads, the leader published
     * none (yet), or the services keep none. A record of a job manager that no longer leads is not returned.
     */
    Optional<Published> read() throws IOException;

    /** For HA services with a single job manager (nothing to compare with): publishes nothing, reads nothing. */
    LeaderSettingsStore NONE = new LeaderSettingsStore() {
        @Override
        public void publish(String contenderId, Map<String, String> settings) {
        }

        @Override
        public Optional<Published> read() {
            return Optional.empty();
        }
    };
}
