package io.sluice.storage.s3.sink;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.Committer;
import io.sluice.api.sink.SinkWriter;
import io.sluice.api.sink.TwoPhaseCommitSink;
import io.sluice.config.Configuration;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.storage.s3.S3Options;
import io.sluice.util.Clock;
import io.sluice.util.SystemClock;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes each record's text (its {@code toString()}, or a {@link LineEncoder}) as one UTF-8 line into part
 * files on S3 that become visible <b>exactly once</b>, when the checkpoint covering them completes: the S3
 * variant of {@link io.sluice.api.sink.ExactlyOnceFileSink}, on the {@link TwoPhaseCommitSink} contract.
 *
 * <p>Subtask {@code s} writes the object {@code <prefix>/part-<s>-<writer>-<n>} as a multipart upload
 * ({@link S3PartFileWriter}): parts of {@code s3.part-size} bytes are uploaded as they fill; the file rolls
 * by size ({@code maxPartFileBytes}), by age ({@code rolloverInterval}) and at every checkpoint barrier,
 * where its last part goes up and the upload's id and parts become the committable in the checkpoint. When
 * the checkpoint completes, the committer completes the upload and S3 publishes the whole object at once
 * ({@link S3PartFileCommitter}; idempotent). A reader listing the prefix sees whole objects only, each
 * record once; uploads of failed attempts are aborted.
 *
 * <p><b>S3 settings are the sink's own</b>, given with {@link Builder#s3Options} (endpoint, region,
 * path-style, timeouts, retries, {@code s3.part-size}): they travel with the job, so the job says where its
 * output goes, independent of where the cluster keeps its checkpoints. Credentials never do: the builder
 * refuses {@code s3.access-key}/{@code s3.secret-key}; on the task manager they come from its system
 * properties {@code sluice.s3.access-key}/{@code sluice.s3.secret-key}, else the AWS SDK's default chain
 * (environment variables, profile, container or instance role). Unset options too are taken from the task
 * manager's system properties {@code sluice.s3.*}, then the defaults of {@link S3Options}.
 *
 * <p>Instances are immutable and travel in the job graph; build with {@link #builder}.
 */
public final class S3ExactlyOnceFileSink<T> implements TwoPhaseCommitSink<T, S3PartFile> {
    private static final long serialVersionUID = 1L;
    /** Default {@code maxPartFileBytes}: 128 MiB. */
    public static final long DEFAULT_MAX_PART_FILE_BYTES = 128L << 20;
    /** Default {@code rolloverInterval}: 15 minutes. */
    public static final Duration DEFAULT_ROLLOVER_INTERVAL = Duration.ofMinutes(15);

    /** Turns a record into one line of text (without the line break). */
    @FunctionalInterface
    public interface LineEncoder<T> extends Serializable {
        String encode(T value);
    }

    private final String bucket;
    private final String keyPrefix;
    private final long maxPartFileBytes;
    private final Duration rolloverInterval;
    private final LineEncoder<T> encoder;
    private final TreeMap<String, String> s3Options;
    /** Not serialized: a deployed sink uses the system clock. */
    private final transient Clock clock;

    private S3ExactlyOnceFileSink(Builder<T> b) {
        this.bucket = b.bucket;
        this.keyPrefix = b.keyPrefix;
        this.maxPartFileBytes = b.maxPartFileBytes;
        this.rolloverInterval = b.rolloverInterval;
        this.encoder = b.encoder;
        this.s3Options = new TreeMap<>(b.s3Options);
        this.clock = b.clock;
    }

    /** A sink writing part files under {@code location}, {@code s3://bucket} or {@code s3://bucket/prefix}. */
    public static <T> Builder<T> builder(String location) {
        return new Builder<>(location);
    }

    @Override
    public SinkWriter<T, S3PartFile> createWriter(RuntimeContext context, List<S3PartFile> restored) {
        Configuration options = effectiveOptions();
        return new S3PartFileWriter<>(this, new S3SinkClient(bucket, options), clock == null ? SystemClock.INSTANCE : clock,
                context.subtaskIndex(), context.parallelism(), restored, Math.toIntExact(options.get(S3Options.PART_SIZE)));
    }

    @Override
    public Committer<S3PartFile> createCommitter(RuntimeContext context) {
        return new S3PartFileCommitter(new S3SinkClient(bucket, effectiveOptions()));
    }

    @Override
    public TypeSerializer<S3PartFile> committableSerializer() {
        return new S3PartFileSerializer();
    }

    /** {@code s3://bucket/prefix} as given to the builder (without a trailing slash). */
    public String location() {
        return "s3://" + bucket + (keyPrefix.isEmpty() ? "" : "/" + keyPrefix.substring(0, keyPrefix.length() - 1));
    }

    String bucket() {
        return bucket;
    }

    /** {@code ""} or {@code "prefix/"}. */
    String keyPrefix() {
        return keyPrefix;
    }

    long maxPartFileBytes() {
        return maxPartFileBytes;
    }

    Duration rolloverInterval() {
        return rolloverInterval;
    }

    String encode(T value) {
        return encoder == null ? String.valueOf(value) : encoder.encode(value);
    }

    /** The sink's options plus, for keys it does not set, this JVM's system properties {@code sluice.s3.*}. */
    private Configuration effectiveOptions() {
        return S3Options.effective(new Configuration(s3Options));
    }

    /** Settings of an {@link S3ExactlyOnceFileSink}. */
    public static final class Builder<T> {
        private final String bucket;
        private final String keyPrefix;
        private long maxPartFileBytes = DEFAULT_MAX_PART_FILE_BYTES;
        private Duration rolloverInterval = DEFAULT_ROLLOVER_INTERVAL;
        private LineEncoder<T> encoder;
        private Map<String, String> s3Options = Map.of();
        private Clock clock = SystemClock.INSTANCE;

        private Builder(String location) {
            String[] parsed = SinkLocation.parse(location);
            this.bucket = parsed[0];
            this.keyPrefix = parsed[1].isEmpty() ? "" : parsed[1] + "/";
        }

        /** Roll to a new part file once the current one holds this many bytes (default 128 MiB). */
        public Builder<T> maxPartFileBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("S3ExactlyOnceFileSink: maxPartFileBytes must be at least 1, was "
                        + bytes);
            }
            this.maxPartFileBytes = bytes;
            return this;
        }

        /** Roll to a new part file once the current one is this old (default 15 minutes). */
        public Builder<T> rolloverInterval(Duration interval) {
            if (interval == null || interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("S3ExactlyOnceFileSink: rolloverInterval must be positive, was "
                        + interval);
            }
            this.rolloverInterval = interval;
            return this;
        }

        /** How a record becomes a line (default: {@code String.valueOf(record)}). */
        public Builder<T> encoder(LineEncoder<T> encoder) {
            this.encoder = java.util.Objects.requireNonNull(encoder, "encoder");
            return this;
        }

        /**
         * The S3 settings ({@link S3Options}: endpoint, region, path-style access, timeouts, retries,
         * {@code s3.part-size}), checked here. Credentials are refused: they would travel in the job graph;
         * see the class comment for where they come from.
         */
        public Builder<T> s3Options(Configuration options) {
            Map<String, String> values = new TreeMap<>();
            options.toMap().forEach((k, v) -> {
                if (k.equals(S3Options.ACCESS_KEY.key()) || k.equals(S3Options.SECRET_KEY.key())) {
                    throw new IllegalArgumentException("S3ExactlyOnceFileSink: " + k + " must not be set on the sink:"
                            + " the sink travels in the job graph (stored in HA storage), so a secret there would be"
                            + " readable by anyone who can read that storage. Give the task managers the credentials"
                            + " instead: -Dsluice.s3.access-key/-Dsluice.s3.secret-key, AWS_ACCESS_KEY_ID/"
                            + "AWS_SECRET_ACCESS_KEY, a profile or an instance role");
                }
                if (!k.startsWith("s3.")) {
                    throw new IllegalArgumentException("S3ExactlyOnceFileSink: '" + k + "' is not an S3 option;"
                            + " s3Options takes only s3.* keys");
                }
                values.put(k, v);
            });
            S3Options.effective(new Configuration(values)); // fails now, naming key and value, for a bad one
            this.s3Options = values;
            return this;
        }

        /** The clock of the time-based roll, for tests; not serialized with the job graph (deployed: the system clock). */
        public Builder<T> clock(Clock clock) {
            this.clock = java.util.Objects.requireNonNull(clock, "clock");
            return this;
        }

        public S3ExactlyOnceFileSink<T> build() {
            return new S3ExactlyOnceFileSink<>(this);
        }
    }
}
