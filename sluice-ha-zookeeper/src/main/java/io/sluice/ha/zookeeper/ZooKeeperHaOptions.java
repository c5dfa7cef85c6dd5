package io.sluice.ha.zookeeper;

import io.sluice.config.ConfigOption;
import io.sluice.config.ConfigOptions;
import java.time.Duration;

/**
 * Options of the ZooKeeper high-availability services ({@code high-availability.type: zookeeper}).
 * Constants only; thread-safe. {@link #QUORUM} has no usable default: the factory fails with an
 * error naming the key when it is not set.
 */
public final class ZooKeeperHaOptions {
    private ZooKeeperHaOptions() {}

    public static final ConfigOption<String> QUORUM = ConfigOptions.key("high-availability.zookeeper.quorum")
            .stringType()
            .defaultValue("")
            .withDescription("Required with high-availability.type zookeeper: the ZooKeeper connect string,"
                    + " for example 'zk1:2181,zk2:2181,zk3:2181'.");

    public static final ConfigOption<String> ROOT = ConfigOptions.key("high-availability.zookeeper.root")
            .stringType()
            .defaultValue("/sluice")
            .withConstraint(s -> s.startsWith("/") && !s.endsWith("/") || s.equals("/"),
                    "an absolute znode path such as /sluice")
            .withDescription("The znode under which all Sluice clusters keep their HA data.");

    public static final ConfigOption<String> CLUSTER_ID = ConfigOptions.key("high-availability.cluster-id")
            .stringType()
            .defaultValue("default")
            .withConstraint(s -> !s.isBlank() && !s.contains("/"), "a non-empty name without '/'")
            .withDescription("Names this cluster's HA data (<root>/<cluster-id>), so several clusters share one"
                    + " ZooKeeper. Job managers of one cluster use the same id.");

    public static final ConfigOption<Duration> SESSION_TIMEOUT = ConfigOptions.key("high-availability.zookeeper.session-timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(60))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "a positive duration")
            .withDescription("ZooKeeper session timeout: how long after losing contact a job manager's session"
                    + " (and with it its leaderships) expires.");

    public static final ConfigOption<Duration> CONNECTION_TIMEOUT = ConfigOptions.key("high-availability.zookeeper.connection-timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(15))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "a positive duration")
            .withDescription("How long to wait for a connection to ZooKeeper, at start-up and per operation.");

    public static final ConfigOption<Duration> RETRY_BASE_SLEEP = ConfigOptions.key("high-availability.zookeeper.retry.base-sleep")
            .durationType()
            .defaultValue(Duration.ofMillis(100))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "a positive duration")
            .withDescription("Base sleep of the exponential backoff between retries of a failed ZooKeeper operation.");

    public static final ConfigOption<Integer> RETRY_MAX_RETRIES = ConfigOptions.key("high-availability.zookeeper.retry.max-retries")
            .intType()
            .defaultValue(5)
            .withConstraint(n -> n >= 0 && n <= 29, "between 0 and 29")
            .withDescription("How many times a failed ZooKeeper operation is retried (exponential backoff).");

    public static final ConfigOption<Duration> SUSPENDED_TOLERANCE = ConfigOptions.key("high-availability.zookeeper.suspended-tolerance")
            .durationType()
            .defaultValue(Duration.ZERO)
            .withConstraint(d -> !d.isNegative(), "a duration >= 0")
            .withDescription("How long a leader keeps acting as leader while its ZooKeeper connection is SUSPENDED"
                    + " (0 s: it gives up leadership at once). Writes stay fenced either way; a longer tolerance"
                    + " avoids restarting jobs on short network blips.");

    public static final ConfigOption<String> STORAGE_DIR = ConfigOptions.key("high-availability.storage-dir")
            .stringType()
            .defaultValue("")
            .withDescription("Shared storage where the ZooKeeper HA services keep the jars of jobs submitted from"
                    + " jars (<storage-dir>/<cluster-id>/jobjars/<jobId>.jar; ZooKeeper records each jar's SHA-256):"
                    + " a location every job manager reaches, such as file:///shared/mount/sluice-ha or"
                    + " s3://bucket/sluice-ha (with sluice-storage-s3). Empty: jobs from jars are rejected with"
                    + " ZooKeeper HA; jobs built in Java are not affected.");
}
