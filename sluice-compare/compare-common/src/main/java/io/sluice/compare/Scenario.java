package io.sluice.compare;

import java.util.Arrays;
import java.util.Optional;

/**
 * The scenarios of the comparison, with the metric names each one reports. The identifiers are the
 * first column of the result files; the driver groups rows by them. Every harness runs every
 * scenario, except that a harness may declare an {@linkplain #optional() optional} one not run
 * ({@link Results#notRun}); the report then shows "n/a" for that system there.
 */
public enum Scenario {
    /** Job-status queries every 10 ms while storage or ZooKeeper is slow or stalled during recovery. */
    STATUS_DURING_STALL("status-during-stall", "Status latency while storage or ZooKeeper stalls during recovery"),
    /** A task fails; N retained checkpoints, D ms per storage read. */
    TASK_FAILOVER("task-failover", "Task failover"),
    /** A new job manager starts on the same HA data; N retained checkpoints, D ms per storage read. */
    JM_FAILOVER("jm-failover", "Job-manager failover (leadership regained)"),
    /** Sustained throughput of the keyed counting job, checkpoints every second. */
    THROUGHPUT("throughput", "Throughput"),
    /**
     * The throughput job with its two subtasks' slots on two task managers whose keyed exchange
     * crosses TCP (Sluice: {@code networkDataExchange}; Flink: a MiniCluster of 2 task managers, Netty),
     * then a bounded run whose per-key counts must be exact ({@link CountingCheck}).
     */
    THROUGHPUT_2TM("throughput-2tm", "Throughput across two task managers (data exchange over TCP)", true),
    /** End-to-end checkpoint duration of the same job with a fixed state size. */
    CHECKPOINT_DURATION("checkpoint-duration", "Checkpoint duration"),
    /** A 1 s tumbling event-time window summing per key ({@link WindowWorkload#TUMBLING}), checkpoints every second. */
    WINDOW_TUMBLING("window-tumbling", "Tumbling 1 s event-time window sum, 1,024 keys", true),
    /** A session window with a 5 s gap counting per key ({@link WindowWorkload#SESSION}), checkpoints every second. */
    WINDOW_SESSION("window-session", "Session-window (5 s gap) count, 100,000 keys", true),
    /**
     * Kafka → keyed count → Kafka, exactly once, checkpoints every second, a KRaft broker in the harness JVM:
     * records/s while draining a backlog, then produce-to-committed-visibility latency of paced records
     * as a {@code read_committed} consumer sees them (module {@code compare-kafka}).
     */
    KAFKA_EXACTLY_ONCE("kafka-exactly-once", "Kafka → keyed count → Kafka, exactly once, checkpoints every second", true),
    /**
     * State larger than memory on RocksDB with incremental checkpoints ({@link LargeStatePlan}): load every
     * key once, then about 1 % of the keys change per second; records/s, bytes uploaded and duration per
     * checkpoint, task failover, savepoint, rescale 2 -> 4. Outside the default full run: a harness runs it
     * in full mode only when {@code --only} names it ({@link #explicitOnly()}); the smoke run includes it (a
     * few MB of state, seconds per system).
     */
    LARGE_STATE("large-state", "Large state on RocksDB, incremental checkpoints", true, true);

    private final String id;
    private final String title;
    private final boolean optional;
    private final boolean explicitOnly;

    Scenario(String id, String title) {
        this(id, title, false);
    }

    Scenario(String id, String title, boolean optional) {
        this(id, title, optional, false);
    }

    Scenario(String id, String title, boolean optional, boolean explicitOnly) {
        this.id = id;
        this.title = title;
        this.optional = optional;
        this.explicitOnly = explicitOnly;
    }

    /**
     * Whether this scenario runs in a full run only when {@code --only} names it: it is left out of the
     * default full run (all scenarios) because it needs far more time, memory and disk than the others. The
     * smoke run, whose plan keeps it to seconds, runs it like any other.
     */
    public boolean explicitOnly() {
        return explicitOnly;
    }

    /**
     * The scenarios a harness runs when {@code --only} is not given: in smoke mode all, in full mode all but
     * the {@linkplain #explicitOnly() explicit-only} ones.
     */
    public static java.util.Set<Scenario> defaults(Plan plan) {
        java.util.EnumSet<Scenario> s = java.util.EnumSet.noneOf(Scenario.class);
        for (Scenario scenario : values()) {
            if (plan.smokeMode() || !scenario.explicitOnly) {
                s.add(scenario);
            }
        }
        return s;
    }

    /**
     * Whether a harness may leave this scenario out (declaring it with {@link Results#notRun}); the
     * others every harness must run.
     */
    public boolean optional() {
        return optional;
    }

    public String id() {
        return id;
    }

    public String title() {
        return title;
    }

    public static Optional<Scenario> byId(String id) {
        return Arrays.stream(values()).filter(s -> s.id.equals(id)).findFirst();
    }

    /** Metric names used in the result files (units are in the name). */
    public static final class Metric {
        private Metric() {}

        public static final String P50_MS = "p50_ms";
        public static final String P99_MS = "p99_ms";
        public static final String MAX_MS = "max_ms";
        public static final String OVER_1S = "over_1s";
        public static final String QUERIES = "queries";
        public static final String UNANSWERED = "unanswered";
        public static final String ERRORS = "errors";

        public static final String TO_RUNNING_MS = "to_running_ms";
        public static final String METADATA_READS = "metadata_reads";
        public static final String RESTORED = "restored_state";
        public static final String FIRST_STATUS_MS = "first_status_ms";
        public static final String STATUS_P99_MS = "status_p99_ms";
        public static final String STATUS_MAX_MS = "status_max_ms";

        public static final String RECORDS_PER_S = "records_per_s";
        public static final String RUNS = "runs";
        /**
         * Records per second of CPU time the harness JVM used in the measured window (all its threads:
         * tasks, GC, JIT): less sensitive than {@link #RECORDS_PER_S} to other load on a shared machine.
         */
        public static final String RECORDS_PER_CPU_S = "records_per_cpu_s";

        public static final String DURATION_P50_MS = "duration_p50_ms";
        public static final String DURATION_MAX_MS = "duration_max_ms";
        public static final String STATE_BYTES = "state_bytes";
        public static final String CHECKPOINTS = "checkpoints";

        /** Distinct task managers (task executors) the measured job's subtasks ran on. */
        public static final String TASK_MANAGERS = "task_managers";
        /** Bytes the task managers received from each other over TCP in the measured window, per record counted. */
        public static final String TCP_BYTES_PER_RECORD = "tcp_bytes_per_record";
        /** Records the bounded counting check run's sink received; must equal {@link #CHECK_RECORDS_EXPECTED}. */
        public static final String CHECK_RECORDS = "check_records";
        /** Records of the bounded counting check run ({@link CountingCheck}). */
        public static final String CHECK_RECORDS_EXPECTED = "check_records_expected";

        /** Median time from a record's send to its count becoming visible to a {@code read_committed} consumer. */
        public static final String VISIBILITY_P50_MS = "visibility_p50_ms";
        /** 99th percentile of the same. */
        public static final String VISIBILITY_P99_MS = "visibility_p99_ms";
        /** Largest of the same. */
        public static final String VISIBILITY_MAX_MS = "visibility_max_ms";
        /** Output records seen twice by the {@code read_committed} consumer (a count of a key twice); must be 0. */
        public static final String DUPLICATES = "duplicates";

        /** Windows (or sessions) the bounded check run fired; must equal {@link #WINDOWS_EXPECTED}. */
        public static final String WINDOWS_FIRED = "windows_fired";
        /** Windows the bounded check run must fire, computed by {@link WindowWorkload#expected}. */
        public static final String WINDOWS_EXPECTED = "windows_expected";

        /** {@link Scenario#LARGE_STATE}: records/s of the load phase, which writes every key once, unthrottled. */
        public static final String LOAD_RECORDS_PER_S = "load_records_per_s";
        /** {@link Scenario#LARGE_STATE}: the steady phase's paced rate (records/s the source offers), for reference. */
        public static final String STEADY_TARGET_RATE = "steady_target_rate";
        /**
         * {@link Scenario#LARGE_STATE}: median bytes written to checkpoint storage per checkpoint in the steady
         * phase (new files in the checkpoint directory, attributed to the checkpoint that completed next).
         */
        public static final String UPLOAD_BYTES_P50 = "upload_bytes_p50";
        /** {@link Scenario#LARGE_STATE}: {@link #UPLOAD_BYTES_P50} as a fraction of the full state ({@link #STATE_BYTES}). */
        public static final String UPLOAD_FRACTION_P50 = "upload_fraction_p50";
        /**
         * {@link Scenario#LARGE_STATE}: the mean of the same bytes (compactions upload in bursts, a few checkpoints
         * of a window carry most of the bytes, which the median hides).
         */
        public static final String UPLOAD_BYTES_MEAN = "upload_bytes_mean";
        /**
         * {@link Scenario#LARGE_STATE}: {@link #UPLOAD_BYTES_MEAN} ÷ the value bytes the steady phase changed per
         * checkpoint interval (achieved records/s × interval × value size): 1 would be an upload of exactly the
         * changed values; what a system uploads beyond that is keys and file overhead, and compactions.
         */
        public static final String UPLOAD_PER_CHANGED_BYTE = "upload_per_changed_byte";
        /**
         * {@link Scenario#LARGE_STATE}: {@link #UPLOAD_BYTES_P50} ÷ the same changed value bytes per interval: the
         * median upload for the same change, so that a system that processes more records per second (and so
         * changes more per checkpoint) is not counted worse for it.
         */
        public static final String UPLOAD_P50_PER_CHANGED_BYTE = "upload_p50_per_changed_byte";
        /** {@link Scenario#LARGE_STATE}: from an injected task failure to the first completed checkpoint after it. */
        public static final String TO_CHECKPOINT_MS = "to_checkpoint_ms";
        /**
         * {@link Scenario#LARGE_STATE}: bytes written to the checkpoint directory from just before an injected task
         * failure until the first checkpoint after it completed (what that checkpoint uploaded, median over failovers).
         */
        public static final String FAILOVER_UPLOAD_BYTES = "failover_upload_bytes";
        /**
         * {@link Scenario#LARGE_STATE}: job-manager failover (the whole cluster stops as a job-manager process exit
         * would, a new one starts on the same HA store), from the new cluster's start to the first record processed
         * with restored state.
         */
        public static final String JM_FAILOVER_TO_RUNNING_MS = "jm_failover_to_running_ms";
        /** {@link Scenario#LARGE_STATE}: the same, to the first checkpoint triggered after the new cluster's start completing. */
        public static final String JM_FAILOVER_TO_CHECKPOINT_MS = "jm_failover_to_checkpoint_ms";
        /** {@link Scenario#LARGE_STATE}: from triggering a savepoint of the running job to its completion. */
        public static final String SAVEPOINT_MS = "savepoint_ms";
        /** {@link Scenario#LARGE_STATE}: bytes of that savepoint's files. */
        public static final String SAVEPOINT_BYTES = "savepoint_bytes";
        /** {@link Scenario#LARGE_STATE}: rescale, from the stop-with-savepoint request to the savepoint's completion. */
        public static final String RESCALE_SAVEPOINT_MS = "rescale_savepoint_ms";
        /** {@link Scenario#LARGE_STATE}: rescale, from the stop request to the first record processed with restored state at the new parallelism. */
        public static final String RESCALE_TO_RUNNING_MS = "rescale_to_running_ms";
        /** {@link Scenario#LARGE_STATE}: rescale, from the stop request to the first completed checkpoint at the new parallelism. */
        public static final String RESCALE_TO_CHECKPOINT_MS = "rescale_to_checkpoint_ms";
        /** {@link Scenario#LARGE_STATE}: rescale from the latest retained checkpoint, from the cancel request to the first record with restored state. */
        public static final String RESCALE_CHECKPOINT_TO_RUNNING_MS = "rescale_chk_to_running_ms";
        /** {@link Scenario#LARGE_STATE}: the same, to the first completed checkpoint at the new parallelism. */
        public static final String RESCALE_CHECKPOINT_TO_CHECKPOINT_MS = "rescale_chk_to_checkpoint_ms";
    }
}
