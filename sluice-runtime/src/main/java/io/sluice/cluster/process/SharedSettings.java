package io.sluice.cluster.process;

import io.sluice.config.CheckpointingOptions;
import io.sluice.config.ConfigOption;
import io.sluice.config.Configuration;
import io.sluice.config.HeartbeatOptions;
import io.sluice.config.RpcOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The settings the job managers of one cluster should share, and how two sets of them differ. The
 * leading job manager publishes its own ({@link io.sluice.ha.LeaderSettingsStore}); one that starts
 * compares its own with them:
 * <ul>
 *   <li>{@value #STORAGE_DIR} must agree ({@link #REQUIRED}): the jars of the jobs are kept there, so a
 *       job manager with another one could not load them when it takes over; it refuses to start
 *       ({@link SharedSettingsMismatchException}), at deployment time rather than at the failover.</li>
 *   <li>the others ({@link #RECOMMENDED}) should agree: with different values the cluster works, but
 *       behaves differently after a failover ({@code rpc.max-message-size}: a forwarded submission the
 *       leader's smaller limit refuses; heartbeats and the session timeout: other failure detection;
 *       {@code checkpoints.*}: other defaults for jobs submitted through it). It starts and logs one
 *       warning naming each key and both values.</li>
 * </ul>
 * Values are compared after normalising (an option's default where it is unset, {@code 1 MiB} and
 * {@code 1048576} alike, a trailing {@code /} or a {@code file:} prefix of a storage directory
 * ignored). Immutable; any thread.
 */
public final class SharedSettings {
    /** The HA storage directory's key ({@code ZooKeeperHaOptions.STORAGE_DIR}, in the ZooKeeper module). */
    public static final String STORAGE_DIR = "high-availability.storage-dir";
    /** The ZooKeeper session timeout's key ({@code ZooKeeperHaOptions}). */
    static final String SESSION_TIMEOUT = "high-availability.zookeeper.session-timeout";
    static final String UNSET = "(not set)";

    /** Keys that must agree: a job manager whose value differs from the leader's refuses to start. */
    public static final List<String> REQUIRED = List.of(STORAGE_DIR);
    /** Keys that should agree: a job manager whose value differs starts and logs a warning. */
    public static final List<String> RECOMMENDED = List.of(RpcOptions.MAX_MESSAGE_SIZE.key(), RpcOptions.TIMEOUT.key(),
            HeartbeatOptions.INTERVAL.key(), HeartbeatOptions.TIMEOUT.key(), SESSION_TIMEOUT,
            CheckpointingOptions.DIRECTORY.key(), CheckpointingOptions.INTERVAL.key());

    /** One key whose values differ. */
    public record Difference(String key, String mine, String leaders, boolean required) {
        @Override
        public String toString() {
            return key + ": this job manager " + mine + ", the leader " + leaders;
        }
    }

    private final Map<String, String> values;

    private SharedSettings(Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    /** The normalised shared settings of {@code configuration}. */
    public static SharedSettings of(Configuration configuration) {
        Map<String, String> v = new LinkedHashMap<>();
        v.put(STORAGE_DIR, configuration.getString(STORAGE_DIR).map(SharedSettings::normalizedDirectory).orElse(UNSET));
        v.put(RpcOptions.MAX_MESSAGE_SIZE.key(), formatted(configuration, RpcOptions.MAX_MESSAGE_SIZE));
        v.put(RpcOptions.TIMEOUT.key(), formatted(configuration, RpcOptions.TIMEOUT));
        v.put(HeartbeatOptions.INTERVAL.key(), formatted(configuration, HeartbeatOptions.INTERVAL));
        v.put(HeartbeatOptions.TIMEOUT.key(), formatted(configuration, HeartbeatOptions.TIMEOUT));
        v.put(SESSION_TIMEOUT, configuration.getString(SESSION_TIMEOUT).map(String::strip).orElse(UNSET));
        v.put(CheckpointingOptions.DIRECTORY.key(), configuration.getString(CheckpointingOptions.DIRECTORY.key())
                .map(SharedSettings::normalizedDirectory).orElse(UNSET));
        v.put(CheckpointingOptions.INTERVAL.key(), formatted(configuration, CheckpointingOptions.INTERVAL));
        return new SharedSettings(v);
    }

    /** Settings as a leader published them. */
    public static SharedSettings published(Map<String, String> values) {
        return new SharedSettings(values);
    }

    public Map<String, String> values() {
        return values;
    }

    /** The keys whose values differ between these (this job manager's) and {@code leaders}; required ones first. */
    public List<Difference> differencesFrom(SharedSettings leaders) {
        List<Difference> out = new ArrayList<>();
        for (String key : REQUIRED) {
            add(out, key, leaders, true);
        }
        for (String key : RECOMMENDED) {
            add(out, key, leaders, false);
        }
        return out;
    }

    private void add(List<Difference> out, String key, SharedSettings leaders, boolean required) {
        String mine = values.getOrDefault(key, UNSET);
        String theirs = leaders.values.get(key);
        if (theirs != null && !Objects.equals(mine, theirs)) { // a key the leader's version does not publish is not compared
            out.add(new Difference(key, mine, theirs, required));
        }
    }

    private static <T> String formatted(Configuration configuration, ConfigOption<T> option) {
        T value = configuration.get(option);
        return value == null ? UNSET : option.format(value);
    }

    /** {@code /a/b/}, {@code file:///a/b} and {@code /a/b} alike; other schemes without a trailing slash. */
    static String normalizedDirectory(String raw) {
        String s = raw.strip();
        if (s.startsWith("file:")) {
            try {
                s = Path.of(java.net.URI.create(s)).toString();
            } catch (RuntimeException e) {
                // not a valid file URI: compare it as written
            }
        }
        if (s.startsWith("/")) {
            s = Path.of(s).normalize().toString();
        }
        while (s.length() > 1 && s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        return s;
    }
}
