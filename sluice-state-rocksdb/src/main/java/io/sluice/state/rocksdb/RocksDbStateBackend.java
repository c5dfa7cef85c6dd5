package io.sluice.state.rocksdb;

import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.config.Configuration;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.KeyedStateBackendParameters;
import io.sluice.state.StateBackend;
import io.sluice.state.StateBackendFactory;
import io.sluice.util.DirectoryClaims;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keyed state in embedded RocksDB instances ({@code state.backend: rocksdb}): one instance per task
 * ({@link RocksDbKeyedStateBackend}) in a directory of its own under
 * {@code state.backend.rocksdb.local-dir}, all instances of one slot sharing the slot's native memory
 * budget ({@link SlotMemory}, {@code state.backend.rocksdb.memory.per-slot}).
 *
 * <p>One per task executor, created on first use by {@link io.sluice.state.StateBackends}.
 *
 * <p>Threading: thread-safe. A task's instance is freed after the task closes it, on the closer
 * ({@link RocksDbInstance#close}), so that a failing task reports its failure without waiting for it.
 */
public final class RocksDbStateBackend implements StateBackend {
    public static final String NAME = "rocksdb";
    private static final Logger LOG = LoggerFactory.getLogger(RocksDbStateBackend.class);

    static {
        // Loads RocksDB's native library (once per process, from one shared file: RocksDbNativeLibrary) before any
        // native object.
        RocksDbNativeLibrary.load();
    }

    /** The start of every task directory's name, before the claim token of the process that made it. */
    static final String TASK_DIRECTORY_BASE = "task-";

    /** How long {@link #close} waits for instances being closed before it gives up on them. */
    static final Duration CLOSER_DRAIN = Duration.ofSeconds(60);

    /** How long an idle transfer helper thread stays. */
    static final Duration TRANSFER_IDLE = Duration.ofSeconds(60);

    private final Path localDir;
    private final SlotMemoryPools pools;
    private final Executor closer;
    private final ExecutorService ownedCloser;
    private final boolean incrementalByDefault;
    private final CompactionSettings compaction;
    private final int materializeEvery;
    /**
     * The helpers of the tasks' checkpoint uploads and restore downloads ({@link FileTransfers}): created as needed,
     * ended after {@link #TRANSFER_IDLE} idle; each upload or restore uses at most
     * {@code state.backend.rocksdb.transfer-threads} - 1.
     */
    private final ThreadPoolExecutor transferPool;
    private final FileTransfers transfers;

    /**
     * A backend whose instances are freed after their tasks close them on one daemon thread of its own,
     * {@code sluice-rocksdb-closer}.
     */
    public RocksDbStateBackend(Configuration configuration) {
        this(configuration, null);
    }

    /**
     * A backend whose closed instances are freed on {@code closer} (its native resources closed, slot
     * memory given back, directories deleted); {@code null} for a thread of its own. Tests pass a direct
     * or manual executor.
     */
    RocksDbStateBackend(Configuration configuration, Executor closer) {
        configuration.validate(java.util.List.of(RocksDbOptions.MEMORY_PER_SLOT, RocksDbOptions.WRITE_BUFFER_RATIO,
                RocksDbOptions.HIGH_PRIORITY_POOL_RATIO, RocksDbOptions.LOCAL_DIR, RocksDbOptions.TARGET_FILE_SIZE,
                RocksDbOptions.LEVEL0_COMPACTION_FILES, RocksDbOptions.LEVEL0_SLOWDOWN_FILES,
                RocksDbOptions.LEVEL0_STOP_FILES, RocksDbOptions.CHANGELOG_MATERIALIZE_EVERY,
                RocksDbOptions.TRANSFER_THREADS));
        String dir = configuration.get(RocksDbOptions.LOCAL_DIR).trim();
        this.localDir = dir.isEmpty() ? Path.of(System.getProperty("java.io.tmpdir"), "sluice-rocksdb") : Path.of(dir);
        this.incrementalByDefault = configuration.get(io.sluice.config.StateBackendOptions.INCREMENTAL);
        this.compaction = CompactionSettings.from(configuration);
        this.materializeEvery = configuration.get(RocksDbOptions.CHANGELOG_MATERIALIZE_EVERY);
        this.pools = new SlotMemoryPools(configuration.get(RocksDbOptions.MEMORY_PER_SLOT),
                configuration.get(RocksDbOptions.WRITE_BUFFER_RATIO),
                configuration.get(RocksDbOptions.HIGH_PRIORITY_POOL_RATIO));
        this.ownedCloser = closer == null
                ? Executors.newSingleThreadExecutor(DaemonThreadFactory.named("sluice-rocksdb-closer")) : null;
        this.closer = closer == null ? ownedCloser : closer;
        this.transferPool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, TRANSFER_IDLE.toSeconds(), TimeUnit.SECONDS,
                new SynchronousQueue<>(), DaemonThreadFactory.numbered("sluice-rocksdb-transfer-"));
        this.transfers = new FileTransfers(configuration.get(RocksDbOptions.TRANSFER_THREADS), transferPool);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public KeyedStateBackend createKeyedStateBackend(KeyedStateBackendParameters parameters) {
        // A task manager killed by SIGKILL or the OOM killer cannot delete its tasks' directories; whichever process
        // opens RocksDB state in the same directory next does (another task manager on the host, or the killed
        // one's successor), before it adds its own. Live processes' directories are never touched.
        DirectoryClaims.deleteLeftovers(localDir, TASK_DIRECTORY_BASE);
        String token;
        try {
            token = DirectoryClaims.token(localDir);
        } catch (IOException e) {
            throw new RocksDbStateException("Could not use " + localDir + " for the RocksDB state of "
                    + parameters.owner() + ": " + e + ". Check state.backend.rocksdb.local-dir (a local disk, room and"
                    + " permissions)", e);
        }
        SlotMemory memory = pools.acquire(parameters.slot());
        Path directory = localDir.resolve(directoryName(token, parameters.owner()));
        return new RocksDbKeyedStateBackend(parameters, directory, pools, memory, closer, transfers,
                incrementalByDefault, compaction, materializeEvery);
    }

    /**
     * A directory name for {@code owner} (a task name): {@value #TASK_DIRECTORY_BASE}, this process's
     * {@linkplain DirectoryClaims#token claim token} on the local directory (its pid and a random part), the
     * owner's letters and digits, a random suffix. The token tells a killed process's directories from a live one's.
     */
    static String directoryName(String token, String owner) {
        String cleaned = owner.replaceAll("[^A-Za-z0-9._-]+", "_");
        if (cleaned.length() > 60) {
            cleaned = cleaned.substring(0, 60);
        }
        return TASK_DIRECTORY_BASE + token + "-" + cleaned + "-" + UUID.randomUUID();
    }

    /** The slots with RocksDB state open now (for tests). */
    int openSlots() {
        return pools.openSlots();
    }

    /** Where the tasks' directories go. */
    public Path localDir() {
        return localDir;
    }

    /**
     * No new slot memory after this; waits (up to {@link #CLOSER_DRAIN}) for the instances being closed to be
     * freed and their directories deleted. Instances still open are freed when their tasks close them.
     */
    @Override
    public void close() {
        pools.close();
        transferPool.shutdown(); // uploads still running finish; their tasks have ended
        if (ownedCloser == null) {
            return;
        }
        ownedCloser.shutdown();
        try {
            if (!ownedCloser.awaitTermination(CLOSER_DRAIN.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("RocksDB instances closed by their tasks were not freed within {} s; their directories under"
                        + " {} are deleted by the next process that uses it", CLOSER_DRAIN.toSeconds(), localDir);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Registers {@link RocksDbStateBackend} as {@code rocksdb}. */
    public static final class Factory implements StateBackendFactory {
        @Override
        public String name() {
            return NAME;
        }

        @Override
        public StateBackend create(Configuration configuration) {
            return new RocksDbStateBackend(configuration);
        }
    }
}
