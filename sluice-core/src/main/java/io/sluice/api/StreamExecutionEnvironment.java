package io.sluice.api;

import io.sluice.api.source.CollectionSource;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.source.Source;
import io.sluice.api.source.TextFileSource;
import io.sluice.api.execution.ExecutionContext;
import io.sluice.api.execution.JobExecutionResult;
import io.sluice.api.execution.JobExecutor;
import io.sluice.api.execution.JobExecutorFactory;
import io.sluice.config.CheckpointingOptions;
import io.sluice.config.Configuration;
import io.sluice.config.PipelineOptions;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.config.StateBackendOptions;
import io.sluice.config.StateBackendType;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * Where a job is written: creates sources, holds the job-wide settings, and builds the
 * {@link JobGraph} that a cluster runs ({@code LocalCluster} in sluice-runtime). Not thread-safe;
 * used by the thread that writes the job.
 *
 * <pre>{@code
 * var env = StreamExecutionEnvironment.create().setParallelism(2).enableCheckpointing(Duration.ofSeconds(1));
 * env.fromSequence(0, 1_000_000)
 *    .keyBy(v -> v % 16)
 *    .map(new CountPerKey())
 *    .print();
 * JobGraph job = env.buildJobGraph("count per key");   // or: env.execute("count per key");
 * }</pre>
 *
 * <p>{@link #execute(String)} hands the graph to a {@link JobExecutor}: inside a cluster's jar runner
 * (an {@link ExecutionContext} bound to the thread running {@code main}) to the cluster, otherwise to
 * the {@link JobExecutorFactory} found on the class path (sluice-runtime: an embedded local cluster),
 * so a program's {@code main} runs the same way in both places.
 */
public final class StreamExecutionEnvironment {
    public static final int DEFAULT_PARALLELISM = 2;
    public static final int DEFAULT_MAX_PARALLELISM = 128;

    private final List<Transformation<?>> operators = new ArrayList<>();
    private int nextId = 1;
    private int parallelism = DEFAULT_PARALLELISM;
    private int maxParallelism = DEFAULT_MAX_PARALLELISM;
    private Duration checkpointInterval = Duration.ZERO;
    private Duration checkpointTimeout = Duration.ofMinutes(10);
    private int retainedCheckpoints = 3;
    private int tolerableCheckpointFailures = 3;
    private String checkpointDir = "./sluice-data/checkpoints";
    private RestartStrategyConfig restartStrategy = RestartStrategyConfig.defaults();
    private boolean startWithoutCheckpointAllowed = false;
    private boolean localRecovery = false;
    private int inlineStateThreshold = CheckpointingOptions.DEFAULT_INLINE_STATE_THRESHOLD;
    private String restoreFrom = "";
    private boolean retainCheckpointsOnCancel = true;
    private Duration checkpointStaleAfter = Duration.ZERO;
    /** The job's state backend; {@code null}: the task executors' default. */
    private StateBackendType stateBackend;
    /** Whether to checkpoint incrementally where the backend can; {@code null}: the task executors' default. */
    private Boolean incrementalCheckpoints;

    /** The run context this environment was created in, or {@code null} outside a cluster's jar runner. */
    private ExecutionContext context;
    /** The configuration the environment was created from (the settings of a standalone executor). */
    private Configuration configuration = new Configuration();

    private StreamExecutionEnvironment() {}

    /**
     * An environment with every default, or, inside a cluster's jar runner, with the run's
     * configuration ({@code sluice run --parallelism N -D key=value}).
     */
    public static StreamExecutionEnvironment create() {
        ExecutionContext context = ExecutionContext.current();
        return context == null ? new StreamExecutionEnvironment() : create(new Configuration());
    }

    /**
     * An environment whose defaults come from {@code configuration}: {@code pipeline.*},
     * {@code checkpoints.*} and {@code restart-strategy.*} (see docs/configuration.md). Setters
     * called afterwards override them. Inside a cluster's jar runner the run's configuration is
     * applied over {@code configuration}, and the cluster configuration's job settings under it. Every key is then validated
     * ({@link Configuration#validateAll()}): an unknown key (a typo such as
     * {@code checkpoints.intervall}) or an invalid value is rejected here, naming the key and the
     * nearest known key or the value.
     */
    public static StreamExecutionEnvironment create(Configuration configuration) {
        ExecutionContext context = ExecutionContext.current();
        if (context != null) {
            Configuration merged = context.defaults();
            for (Map.Entry<String, String> e : configuration.toMap().entrySet()) {
                merged.setString(e.getKey(), e.getValue());
            }
            for (Map.Entry<String, String> e : context.configuration().toMap().entrySet()) {
                merged.setString(e.getKey(), e.getValue());
            }
            configuration = merged;
        }
        configuration.validateAll();
        StreamExecutionEnvironment env = new StreamExecutionEnvironment();
        env.parallelism = configuration.get(PipelineOptions.PARALLELISM);
        env.maxParallelism = configuration.get(PipelineOptions.MAX_PARALLELISM);
        env.checkpointInterval = configuration.get(CheckpointingOptions.INTERVAL);
        env.checkpointDir = configuration.get(CheckpointingOptions.DIRECTORY);
        env.retainedCheckpoints = configuration.get(CheckpointingOptions.RETAINED);
        env.checkpointTimeout = configuration.get(CheckpointingOptions.TIMEOUT);
        env.tolerableCheckpointFailures = configuration.get(CheckpointingOptions.TOLERABLE_FAILURES);
        env.inlineStateThreshold = configuration.get(CheckpointingOptions.INLINE_STATE_THRESHOLD);
        env.restartStrategy = RestartStrategyConfig.fromConfiguration(configuration);
        env.context = context;
        env.configuration = configuration.copy();
        env.restoreFrom = configuration.get(CheckpointingOptions.RESTORE_FROM);
        env.retainCheckpointsOnCancel = configuration.get(CheckpointingOptions.RETAIN_ON_CANCEL);
        env.checkpointStaleAfter = configuration.get(CheckpointingOptions.STALE_AFTER);
        env.stateBackend = configuration.contains(StateBackendOptions.BACKEND)
                ? configuration.get(StateBackendOptions.BACKEND) : null;
        env.incrementalCheckpoints = configuration.contains(StateBackendOptions.INCREMENTAL)
                ? configuration.get(StateBackendOptions.INCREMENTAL) : null;
        env.localRecovery = configuration.get(StateBackendOptions.LOCAL_RECOVERY);
        return env;
    }

    public DataStream<Long> fromSequence(long from, long toInclusive) {
        return fromSource(SequenceSource.bounded(from, toInclusive), "Sequence " + from + ".." + toInclusive);
    }

    public <T> DataStream<T> fromCollection(List<T> elements) {
        return fromSource(new CollectionSource<>(elements), "Collection");
    }

    public DataStream<String> readTextFile(String path) {
        return fromSource(new TextFileSource(path), "Text file " + path);
    }

    /**
     * The records of {@code source}. A source that emits to side outputs (such as the Kafka source's
     * records that do not deserialize) offers them through {@code getSideOutput(tag)}.
     */
    public <T> SingleOutputStreamOperator<T> fromSource(Source<T> source, String name) {
        Objects.requireNonNull(source, "source");
        Transformation.SourceNode<T> node = new Transformation.SourceNode<>(nextId(), "Source: " + name, source);
        register(node);
        return new SingleOutputStreamOperator<>(this, node);
    }

    /**
     * A source whose records get event timestamps and watermarks by {@code strategy}, generated in
     * each source subtask, before any exchange.
     */
    public <T> DataStream<T> fromSource(Source<T> source, io.sluice.api.eventtime.WatermarkStrategy<T> strategy,
                                        String name) {
        return fromSource(source, name).assignTimestampsAndWatermarks(strategy);
    }

    /** Default parallelism of operators that do not set their own. */
    public StreamExecutionEnvironment setParallelism(int parallelism) {
        this.parallelism = parallelism;
        return this;
    }

    /** The number of key groups; the upper bound of any operator's parallelism, now and after a rescale. */
    public StreamExecutionEnvironment setMaxParallelism(int maxParallelism) {
        this.maxParallelism = maxParallelism;
        return this;
    }

    public StreamExecutionEnvironment enableCheckpointing(Duration interval) {
        this.checkpointInterval = Objects.requireNonNull(interval, "interval");
        return this;
    }

    public StreamExecutionEnvironment setCheckpointTimeout(Duration timeout) {
        this.checkpointTimeout = Objects.requireNonNull(timeout, "timeout");
        return this;
    }

    public StreamExecutionEnvironment setRetainedCheckpoints(int retained) {
        this.retainedCheckpoints = retained;
        return this;
    }

    public StreamExecutionEnvironment setTolerableCheckpointFailures(int failures) {
        this.tolerableCheckpointFailures = failures;
        return this;
    }

    public StreamExecutionEnvironment setCheckpointDir(String dir) {
        this.checkpointDir = Objects.requireNonNull(dir, "dir");
        return this;
    }

    public StreamExecutionEnvironment setRestartStrategy(RestartStrategyConfig strategy) {
        this.restartStrategy = Objects.requireNonNull(strategy, "strategy");
        return this;
    }

    /** When every retained checkpoint is unreadable at recovery, start from empty state instead of failing. */
    public StreamExecutionEnvironment setStartWithoutCheckpointAllowed(boolean allowed) {
        this.startWithoutCheckpointAllowed = allowed;
        return this;
    }

    /**
     * Task-local recovery: each task executor keeps a copy of the state its tasks last
     * checkpointed, and a task restarted on the same executor restores from it without reading
     * checkpoint storage. The copy in checkpoint storage stays the source of truth and is used
     * whenever the local copy is missing or does not match. Default: {@code state.backend.local-recovery}
     * (false).
     */
    public StreamExecutionEnvironment setLocalRecovery(boolean enabled) {
        this.localRecovery = enabled;
        return this;
    }

    /**
     * A subtask's keyed-state snapshot of at most {@code bytes} serialized bytes is kept inside the
     * checkpoint metadata instead of a state file, so that restoring it reads nothing from checkpoint
     * storage. Default 20 KiB ({@code checkpoints.inline-state-threshold}); 0 writes every snapshot
     * to a state file; at most 1 MiB.
     */
    public StreamExecutionEnvironment setInlineStateThreshold(int bytes) {
        this.inlineStateThreshold = bytes;
        return this;
    }

    /**
     * Starts the job from a retained checkpoint when it has none of its own yet: a checkpoint
     * directory ({@code <checkpoints.dir>/<jobId>/chk-<n>}) or its {@code _metadata} file, or
     * {@code latest:<jobId>} for the newest readable retained checkpoint of an earlier job (for example
     * one that FAILED or was CANCELED). A checkpoint directory may be a copy anywhere (its state files are
     * relative to it); the job may have another parallelism and another state backend.
     * Read when the job recovers, on an I/O thread; a path that holds no readable checkpoint fails the
     * job with a message naming it. Same as {@code checkpoints.restore-from}; empty: start empty.
     */
    public StreamExecutionEnvironment restoreFrom(String checkpoint) {
        this.restoreFrom = Objects.requireNonNull(checkpoint, "checkpoint").trim();
        return this;
    }

    /**
     * After how long without a completed checkpoint the job is marked "no checkpoint since T" in its
     * status ({@code checkpoints.stale-after}); zero: 5 checkpoint intervals, at least 30 s.
     */
    public StreamExecutionEnvironment setCheckpointStaleAfter(Duration staleAfter) {
        if (Objects.requireNonNull(staleAfter, "staleAfter").isNegative()) {
            throw new IllegalArgumentException("checkpoints.stale-after must not be negative, got " + staleAfter);
        }
        this.checkpointStaleAfter = staleAfter;
        return this;
    }

    /** Whether a CANCELED job keeps its checkpoints ({@code checkpoints.retain-on-cancel}, default true). */
    public StreamExecutionEnvironment setRetainCheckpointsOnCancel(boolean retain) {
        this.retainCheckpointsOnCancel = retain;
        return this;
    }

    /**
     * Where the job's keyed state lives ({@code state.backend}): {@link StateBackendType#HEAP} (objects on
     * the heap) or {@link StateBackendType#ROCKSDB} (an embedded RocksDB per task, for state larger than
     * memory; needs sluice-state-rocksdb on the task managers). Unset, the job uses the task managers'
     * default. Checkpoints and savepoints of both are in one format: a job restored with the other
     * backend reads them.
     */
    public StreamExecutionEnvironment setStateBackend(StateBackendType backend) {
        this.stateBackend = Objects.requireNonNull(backend, "backend");
        return this;
    }

    /**
     * Whether checkpoints of a backend that can (RocksDB) upload only the files new since the previous
     * one ({@code state.backend.incremental}, default true). Incremental checkpoints hold RocksDB's own
     * files, which only RocksDB restores; with false, checkpoints are full snapshots in the canonical
     * format every backend reads.
     */
    public StreamExecutionEnvironment setIncrementalCheckpoints(boolean incremental) {
        this.incrementalCheckpoints = incremental;
        return this;
    }

    /** The checkpoint interval in force; {@link Duration#ZERO} while checkpointing is off. */
    public Duration getCheckpointInterval() {
        return checkpointInterval;
    }

    public int getParallelism() {
        return parallelism;
    }

    public int getMaxParallelism() {
        return maxParallelism;
    }

    public JobConfig jobConfig() {
        return new JobConfig(checkpointInterval, checkpointTimeout, retainedCheckpoints, tolerableCheckpointFailures,
                checkpointDir, restartStrategy, startWithoutCheckpointAllowed, localRecovery, inlineStateThreshold,
                restoreFrom.isEmpty() ? null : restoreFrom, !retainCheckpointsOnCancel,
                checkpointStaleAfter.isZero() ? null : checkpointStaleAfter,
                stateBackend == null ? null : stateBackend.backendName(), incrementalCheckpoints);
    }

    /** Builds and validates the job graph; throws {@link io.sluice.api.errors.InvalidJobException} naming any problem. */
    public JobGraph buildJobGraph(String jobName) {
        return buildJobGraph(jobName, JobId.generate());
    }

    public JobGraph buildJobGraph(String jobName, JobId jobId) {
        return new JobGraphBuilder(jobName, jobId, operators, parallelism, maxParallelism, jobConfig()).build();
    }

    /**
     * Builds the job graph and runs it: inside a cluster's jar runner the cluster takes it (the
     * runner may end {@code main} here: do not catch {@link Error}s around this call); on its own,
     * the program runs the job on an embedded local cluster (sluice-runtime must be on the class
     * path) and this call returns when the job has finished, or throws
     * {@link io.sluice.api.execution.JobExecutionException} if it failed or was cancelled.
     */
    public JobExecutionResult execute(String jobName) throws Exception {
        JobGraph graph = buildJobGraph(jobName);
        JobExecutor executor = context != null ? context.executor() : standaloneExecutor();
        return executor.execute(graph);
    }

    private JobExecutor standaloneExecutor() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = StreamExecutionEnvironment.class.getClassLoader();
        }
        for (JobExecutorFactory factory : ServiceLoader.load(JobExecutorFactory.class, loader)) {
            return factory.create(configuration);
        }
        throw new IllegalStateException("No Sluice runtime on the class path to execute the job on: put sluice-runtime"
                + " and its dependencies on the class path to run it on an embedded local cluster, or build a jar and"
                + " submit it to a cluster with 'sluice run <jar>'");
    }

    int nextId() {
        return nextId++;
    }

    void register(Transformation<?> t) {
        operators.add(t);
    }
}
