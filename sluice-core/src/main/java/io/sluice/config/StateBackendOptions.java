package io.sluice.config;

/**
 * Where keyed state lives. {@code state.backend} is read by task executors (their default for every
 * job) and by jobs ({@code StreamExecutionEnvironment.create(configuration)} or
 * {@code setStateBackend}; a job's choice wins). The options of the RocksDB backend itself
 * ({@code state.backend.rocksdb.*}) are declared by {@code sluice-state-rocksdb}; see docs/state.md.
 * Constants only; thread-safe.
 */
public final class StateBackendOptions {
    private StateBackendOptions() {}

    public static final ConfigOption<StateBackendType> BACKEND = ConfigOptions.key("state.backend")
            .enumType(StateBackendType.class)
            .defaultValue(StateBackendType.HEAP)
            .withDescription("Where keyed state (value, list and map state, timers, window contents) lives: heap"
                    + " (objects on the Java heap) or rocksdb (an embedded RocksDB per task on local disk, with native"
                    + " memory bounded per slot; needs sluice-state-rocksdb on the task managers' class path). Set on a"
                    + " task manager it is the default of its jobs; set on a job it wins. Full (not incremental)"
                    + " checkpoints of both are in one format, so a job can move between them by restoring.");

    public static final ConfigOption<Boolean> INCREMENTAL = ConfigOptions.key("state.backend.incremental")
            .booleanType()
            .defaultValue(true)
            .withDescription("Whether a backend that can (rocksdb) checkpoints incrementally: it uploads only the"
                    + " files that are new since its previous checkpoint and refers to the others, which later"
                    + " checkpoints share (a shared-state registry in the job manager deletes a file once no retained"
                    + " checkpoint refers to it). Such a checkpoint holds RocksDB's own files: only rocksdb restores"
                    + " it. To move a job to the heap, take a savepoint (sluice stop <job> --savepoint), whose"
                    + " snapshots are always full ones in the canonical format, and restore from it; or let the job"
                    + " complete a checkpoint with this set to false. Set on a task manager it is the default of its"
                    + " jobs; set on a job it wins. The heap backend ignores it.");

    public static final ConfigOption<Boolean> LOCAL_RECOVERY = ConfigOptions.key("state.backend.local-recovery")
            .booleanType()
            .defaultValue(false)
            .withDescription("Task-local recovery: each task executor keeps a copy of the state its tasks last"
                    + " checkpointed (RocksDB's files as hard links beside its working directory, the heap's snapshots"
                    + " in memory), and a task restarted on the same executor restores from it instead of reading"
                    + " checkpoint storage. The copy in checkpoint storage stays the source of truth: a local copy that"
                    + " is missing or does not match is read from storage, and one that cannot be kept (a full disk) is"
                    + " only logged. Set on a job (sluice run -D state.backend.local-recovery=true, or"
                    + " setLocalRecovery in code, which wins).");
}
