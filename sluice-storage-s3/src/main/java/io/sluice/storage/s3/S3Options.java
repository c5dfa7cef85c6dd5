package io.sluice.storage.s3;

import io.sluice.config.ConfigOption;
import io.sluice.config.ConfigOptions;
import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Options of S3 checkpoint storage ({@code s3://bucket/prefix} locations), all under {@code s3.}.
 * Constants only; thread-safe.
 *
 * <p>Where the values come from: the {@link Configuration} passed to
 * {@link io.sluice.storage.BlobStores#open(String, Configuration)} (from Java:
 * {@code LocalCluster.builder().configuration(...)}); a key that is not set there is read from the
 * JVM system property {@code sluice.<key>} (for example {@code -Dsluice.s3.endpoint=http://minio:9000});
 * otherwise the option's default applies. See {@link #effective(Configuration)}.
 */
public final class S3Options {
    private S3Options() {}

    /** Prefix of the system properties that supply options not set in the configuration. */
    public static final String SYSTEM_PROPERTY_PREFIX = "sluice.";

    private static final long MIB = 1024 * 1024;

    public static final ConfigOption<String> ENDPOINT = ConfigOptions.key("s3.endpoint")
            .stringType()
            .defaultValue("")
            .withConstraint(s -> s.isEmpty() || s.startsWith("http://") || s.startsWith("https://"),
                    "empty or an http:// or https:// URL")
            .withDescription("Endpoint of an S3-compatible store (MinIO, Ceph, S3Proxy), for example"
                    + " http://localhost:9000. Empty: the AWS endpoint of s3.region.");

    public static final ConfigOption<String> REGION = ConfigOptions.key("s3.region")
            .stringType()
            .defaultValue("")
            .withDescription("AWS region, for example eu-west-1. Empty: the SDK's default region provider chain"
                    + " (AWS_REGION, profile), or us-east-1 when an endpoint is set and none is found.");

    public static final ConfigOption<Boolean> PATH_STYLE_ACCESS = ConfigOptions.key("s3.path-style-access")
            .booleanType()
            .defaultValue(false)
            .withDescription("Address buckets as http://endpoint/bucket/key instead of http://bucket.endpoint/key;"
                    + " most S3-compatible stores need true.");

    public static final ConfigOption<String> ACCESS_KEY = ConfigOptions.key("s3.access-key")
            .stringType()
            .defaultValue("")
            .withDescription("Static access key id. Empty: credentials from the SDK's default provider chain"
                    + " (environment, system properties, profile, container or instance role). Set together with"
                    + " s3.secret-key.");

    public static final ConfigOption<String> SECRET_KEY = ConfigOptions.key("s3.secret-key")
            .stringType()
            .defaultValue("")
            .withDescription("Static secret access key; used only with s3.access-key. Never logged.");

    public static final ConfigOption<Duration> CONNECT_TIMEOUT = ConfigOptions.key("s3.connect-timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(2))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "positive")
            .withDescription("Time to establish a TCP connection to the endpoint (and to get a pooled one); an"
                    + " endpoint that does not answer fails the attempt after this.");

    public static final ConfigOption<Duration> SOCKET_TIMEOUT = ConfigOptions.key("s3.socket-timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(5))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "positive")
            .withDescription("Longest wait for data on an open connection (read timeout).");

    public static final ConfigOption<Duration> API_CALL_ATTEMPT_TIMEOUT = ConfigOptions.key("s3.api-call-attempt-timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(5))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "positive")
            .withDescription("Longest time one HTTP attempt of a request may take (an attempt that stalls, for"
                    + " example on a hung connection, is aborted and retried on a new one). Raise it if single"
                    + " part uploads (s3.part-size) take longer on a slow link.");

    public static final ConfigOption<Duration> API_CALL_TIMEOUT = ConfigOptions.key("s3.api-call-timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(20))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "positive")
            .withDescription("Longest time one request may take including all retries; the bound on how long"
                    + " a storage call can block its thread.");

    public static final ConfigOption<Duration> COMPLETE_UPLOAD_TIMEOUT = ConfigOptions.key("s3.complete-upload-timeout")
            .durationType()
            .defaultValue(Duration.ofMinutes(5))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "positive")
            .withDescription("Longest time one attempt of checkpoint storage to complete a multipart upload (or to"
                    + " copy an object on the server, a savepoint's copy of a state file) may take, in place of"
                    + " s3.api-call-attempt-timeout and s3.socket-timeout (the whole call: this times s3.max-retries"
                    + " + 1, in place of s3.api-call-timeout). S3 may take"
                    + " minutes to assemble a large object; it answers at once and keeps the connection open until it"
                    + " is done. A completion retried after S3 had carried it out finds the upload gone and checks the"
                    + " object instead.");

    public static final ConfigOption<Integer> MAX_RETRIES = ConfigOptions.key("s3.max-retries")
            .intType()
            .defaultValue(3)
            .withConstraint(n -> n >= 0 && n <= 20, "between 0 and 20")
            .withDescription("Retries of a failed request (connection refused, timeouts, throttling, 5xx) after"
                    + " the first attempt; 3 means up to 4 attempts.");

    public static final ConfigOption<Duration> RETRY_BASE_DELAY = ConfigOptions.key("s3.retry-base-delay")
            .durationType()
            .defaultValue(Duration.ofMillis(100))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "positive")
            .withDescription("Backoff before the first retry; doubles per retry with full jitter, up to"
                    + " s3.retry-max-delay.");

    public static final ConfigOption<Duration> RETRY_MAX_DELAY = ConfigOptions.key("s3.retry-max-delay")
            .durationType()
            .defaultValue(Duration.ofSeconds(2))
            .withConstraint(d -> !d.isNegative() && !d.isZero(), "positive")
            .withDescription("Longest backoff between two retries.");

    public static final ConfigOption<Long> MULTIPART_THRESHOLD = ConfigOptions.key("s3.multipart-threshold")
            .longType()
            .defaultValue(16 * MIB)
            .withConstraint(n -> n >= 5 * MIB, "at least 5242880 (5 MiB)")
            .withDescription("Blobs larger than this many bytes are uploaded in parts (multipart upload);"
                    + " smaller ones with a single PUT.");

    public static final ConfigOption<Long> PART_SIZE = ConfigOptions.key("s3.part-size")
            .longType()
            .defaultValue(8 * MIB)
            .withConstraint(n -> n >= 5 * MIB && n <= 5L * 1024 * MIB, "between 5242880 (5 MiB) and 5 GiB")
            .withDescription("Size in bytes of each part of a multipart upload (the last part may be smaller).");

    public static final ConfigOption<Integer> LIST_PAGE_SIZE = ConfigOptions.key("s3.list-page-size")
            .intType()
            .defaultValue(1000)
            .withConstraint(n -> n >= 1 && n <= 1000, "between 1 and 1000")
            .withDescription("Keys per ListObjectsV2 page; listings follow continuation tokens across pages.");

    public static final ConfigOption<Integer> DELETE_BATCH_SIZE = ConfigOptions.key("s3.delete-batch-size")
            .intType()
            .defaultValue(1000)
            .withConstraint(n -> n >= 1 && n <= 1000, "between 1 and 1000")
            .withDescription("Keys per DeleteObjects request when deleting recursively (S3 allows at most 1000).");

    public static final ConfigOption<Integer> MAX_CONNECTIONS = ConfigOptions.key("s3.max-connections")
            .intType()
            .defaultValue(50)
            .withConstraint(n -> n >= 1, "at least 1")
            .withDescription("Size of the HTTP connection pool of one S3 location.");

    /** Every option of this class, sorted by key. */
    public static List<ConfigOption<?>> all() {
        return ConfigOptions.declaredIn(S3Options.class);
    }

    /**
     * The S3 settings in effect: every {@code s3.*} option set in {@code configuration}, plus those
     * set only as system properties {@code sluice.<key>}; checked, so that a bad value fails here
     * with an {@link IllegalConfigurationException} naming the key and the value.
     */
    public static Configuration effective(Configuration configuration) {
        Map<String, String> values = new TreeMap<>();
        for (ConfigOption<?> option : all()) {
            String fromProperty = System.getProperty(SYSTEM_PROPERTY_PREFIX + option.key());
            if (fromProperty != null) {
                values.put(option.key(), fromProperty);
            }
        }
        java.util.Set<String> known = new java.util.TreeSet<>();
        all().forEach(o -> known.add(o.key()));
        configuration.toMap().forEach((k, v) -> {
            if (k.startsWith("s3.")) {
                if (!known.contains(k)) {
                    throw new IllegalConfigurationException("Unknown S3 option '" + k + "' (value '" + v
                            + "'); known are " + String.join(", ", known));
                }
                values.put(k, v);
            }
        });
        Configuration effective = new Configuration(values);
        effective.validate(all());
        if (effective.get(ACCESS_KEY).isEmpty() != effective.get(SECRET_KEY).isEmpty()) {
            throw new IllegalConfigurationException("Invalid S3 credentials: " + ACCESS_KEY.key() + " and "
                    + SECRET_KEY.key() + " must be set together (only "
                    + (effective.get(ACCESS_KEY).isEmpty() ? SECRET_KEY.key() : ACCESS_KEY.key()) + " is set)");
        }
        return effective;
    }
}
