package io.sluice.chaos;

import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.storage.BlobStore;
import io.sluice.storage.FaultInjectingBlobStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@link ChaosPlan} against a {@link LocalCluster} on fresh HA services ({@link ChaosHa}:
 * embedded or ZooKeeper) and checkpoint storage behind a {@link FaultInjectingBlobStore}: submits the jobs, fires the
 * plan's steps at their offsets, in plan order (from one scheduler thread; the test thread only waits, bounded),
 * heals storage, waits for every job to end, then restarts the cluster on the same HA state to
 * see whether an ended job runs again. Returns what it saw; {@link ChaosInvariants} judges it.
 */
final class ChaosRun {
    private static final Logger LOG = LoggerFactory.getLogger(ChaosRun.class);

    private final ChaosPlan plan;
    private final ChaosSettings settings;
    private final ChaosHa ha;
    private final Path dir;
    private final List<FaultInjectingBlobStore> stores = new CopyOnWriteArrayList<>();
    private final Map<Integer, Long> maxCompleted = new ConcurrentHashMap<>();
    private final Map<Integer, Boolean> cancelled = new ConcurrentHashMap<>();
    /** Per job: the state files the plan corrupted ({@code chk-N/<file>}, byte offset). */
    private final Map<Integer, List<String>> corrupted = new ConcurrentHashMap<>();
    /** Per job: distinct fallbacks past a checkpoint with an unusable state file, as the job's status showed them. */
    private final Map<Integer, java.util.Set<String>> unusableRestores = new ConcurrentHashMap<>();
    private Path checkpointRoot;
    private volatile ChaosAction storageMode = ChaosAction.STORAGE_HEAL;
    /** Wall-clock times at which storage went down (REFUSE/HANG) or was healed, in order. */
    private final List<long[]> storageTimeline = new CopyOnWriteArrayList<>();
    /** Metadata writes and deletions in checkpoint storage, for explaining a failed invariant. */
    private final StorageJournal journal = new StorageJournal();
    /** Per job: what its status said at the latest poll (state, failure, recovery). */
    private final Map<Integer, String> lastStatus = new ConcurrentHashMap<>();

    ChaosRun(ChaosPlan plan, ChaosSettings settings, ChaosHa ha, Path dir) {
        this.plan = plan;
        this.settings = settings;
        this.ha = ha;
        this.dir = dir;
    }

    /** Every checkpoint store the cluster opens, starting in the fault mode currently in force. */
    private UnaryOperator<BlobStore> faultInjection() {
        return store -> {
            FaultInjectingBlobStore faults = new FaultInjectingBlobStore(journal.decorator().apply(store));
            apply(faults, storageMode);
            stores.add(faults);
            return faults;
        };
    }

    private static void apply(FaultInjectingBlobStore store, ChaosAction mode) {
        switch (mode) {
            case STORAGE_REFUSE -> store.refuseConnections();
            case STORAGE_HANG -> store.hang();
            case STORAGE_HEAL -> store.heal();
            default -> throw new IllegalArgumentException(mode + " is no storage mode");
        }
    }

    ChaosReport run() throws Exception {
        Path checkpoints = dir.resolve("checkpoints");
        checkpointRoot = checkpoints;
        List<JobId> ids = new ArrayList<>();
        List<String> tags = new ArrayList<>();
        List<CollectingSink<Tuple2<Long, Long>>> sinks = new ArrayList<>();
        // The steps on one thread of their own, so that they run in plan order: on a shared pool a final
        // STORAGE_HEAL 1 ms after a STORAGE_HANG could run first and leave storage hung (seen with seed 17).
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
                DaemonThreadFactory.named("chaos-" + plan.seed()));
        ScheduledExecutorService pollerThread = Executors.newSingleThreadScheduledExecutor(
                DaemonThreadFactory.named("chaos-" + plan.seed() + "-poller"));
        List<JobResult> results = new ArrayList<>();
        List<Integer> afterRestart = new ArrayList<>();
        try {
            try (LocalCluster cluster = LocalCluster.builder().haServices(ha.open(), true).taskExecutors(2)
                    .configuration(new io.sluice.config.Configuration()
                            .setString("state.backend.rocksdb.local-dir", dir.resolve("rocksdb").toString())
                            .setString("state.backend.rocksdb.changelog.materialize-every",
                                    String.valueOf(settings.materializeEvery())))
                    .slotsPerTaskExecutor(2 * settings.jobs()).blobStoreDecorator(faultInjection())
                    .seed(plan.seed()).build()) {
                for (int j = 0; j < settings.jobs(); j++) {
                    String tag = "chaos-" + plan.seed() + "-" + j + "-" + UUID.randomUUID();
                    DeploymentLog.open(tag);
                    CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
                    JobId id = JobId.generate();
                    tags.add(tag);
                    sinks.add(sink);
                    ids.add(id);
                    cluster.submit(jobGraph(tag, id, sink, checkpoints));
                }
                ScheduledFuture<?> poller = pollerThread.scheduleWithFixedDelay(() -> poll(cluster, ids), 50, 100,
                        TimeUnit.MILLISECONDS);
                List<ScheduledFuture<?>> steps = new ArrayList<>();
                for (ChaosPlan.Step step : plan.steps()) {
                    steps.add(scheduler.schedule(() -> fire(cluster, step, ids, tags), step.atMillis(),
                            TimeUnit.MILLISECONDS));
                }
                long lastStep = plan.steps().get(plan.steps().size() - 1).atMillis();
                for (ScheduledFuture<?> step : steps) {
                    step.get(lastStep + 60_000, TimeUnit.MILLISECONDS);
                }
                for (JobId id : ids) {
                    results.add(awaitResult(cluster, id));
                }
                poller.cancel(false);
                // Storage is healed by now: a FINISHED job whose files storage refused to delete
                // deletes them by itself, with backoff (FINISHED_CLEANS_UP then finds nothing).
                try {
                    await().atMost(Duration.ofSeconds(15)).until(() -> finishedJobsCleanedUp(ids, results, checkpoints));
                } catch (ConditionTimeoutException e) {
                    LOG.warn("chaos seed={}: a FINISHED job's checkpoint files were still there 15 s after the heal",
                            plan.seed());
                }
            }
            // The same HA directory again: a job with a durable result must not run again.
            Map<Integer, Integer> before = new ConcurrentHashMap<>();
            for (int j = 0; j < ids.size(); j++) {
                before.put(j, DeploymentLog.spans(tags.get(j)).size());
            }
            try (LocalCluster restarted = LocalCluster.builder().haServices(ha.open(), true).taskExecutors(2)
                    .slotsPerTaskExecutor(2 * settings.jobs()).seed(plan.seed()).build()) {
                restarted.dispatcher().listJobs().get(30, TimeUnit.SECONDS);
                // For a second, no job with a result may deploy again (a re-run logs records at once).
                try {
                    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() ->
                            noNewDeployments(results, tags, before));
                } catch (ConditionTimeoutException e) {
                    LOG.warn("chaos seed={}: a job with a result deployed again after the restart", plan.seed());
                }
            }
            for (int j = 0; j < ids.size(); j++) {
                afterRestart.add(DeploymentLog.spans(tags.get(j)).size() - before.get(j));
            }
            List<ChaosReport.JobOutcome> outcomes = new ArrayList<>();
            for (int j = 0; j < ids.size(); j++) {
                JobId id = ids.get(j);
                outcomes.add(new ChaosReport.JobOutcome(j, id, tags.get(j), results.get(j),
                        cancelled.getOrDefault(j, false), maxCompleted.getOrDefault(j, 0L),
                        DeploymentLog.spans(tags.get(j)), afterRestart.get(j),
                        CollectingSink.lastValuePerKey(sinks.get(j).results(), Tuple2::f0, Tuple2::f1),
                        ha.pointers(id),
                        list(checkpoints.resolve(id.value())),
                        corrupted.getOrDefault(j, List.of()),
                        results.get(j) != null && storageDownAround(results.get(j).endTimestampMillis()),
                        List.copyOf(unusableRestores.getOrDefault(j, java.util.Set.of())),
                        lastStatus.getOrDefault(j, "never answered"), journal.under(id.value())));
            }
            return new ChaosReport(plan, settings, outcomes, journal.changelogSegmentsWritten());
        } finally {
            scheduler.shutdownNow();
            pollerThread.shutdownNow();
            stores.forEach(FaultInjectingBlobStore::heal);
            tags.forEach(t -> {
                DeploymentLog.release(t);
                ChaosCounter.release(t);
            });
            sinks.forEach(CollectingSink::release);
        }
    }

    private io.sluice.graph.JobGraph jobGraph(String tag, JobId id, CollectingSink<Tuple2<Long, Long>> sink,
                                             Path checkpoints) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create()
                .setParallelism(ChaosSettings.PARALLELISM)
                .setStateBackend(settings.backend()).setIncrementalCheckpoints(true) // the heap ignores incremental
                .enableCheckpointing(settings.checkpointInterval())
                .setCheckpointDir(checkpoints.toString());
        env.fromSource(SequenceSource.bounded(0, settings.records() - 1).withRate(settings.recordsPerSecond()), "numbers")
                .keyBy(new KeyedCountingJob.ModKey(ChaosSettings.KEYS))
                .map(new ChaosCounter(tag, ChaosSettings.KEYS, settings.mutableState(), settings.stateBytesPerKey()))
                .name("chaos count")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                .addSink(sink, "results");
        return env.buildJobGraph("chaos " + tag, id);
    }

    /** Scheduler thread. */
    private void fire(LocalCluster cluster, ChaosPlan.Step step, List<JobId> ids, List<String> tags) {
        LOG.info("chaos seed={} step {}", plan.seed(), step);
        try {
            switch (step.action()) {
                case TASK_FAILURE -> ChaosCounter.armFailure(tags.get(step.job()));
                case STORAGE_REFUSE, STORAGE_HANG, STORAGE_HEAL -> {
                    if (storageMode != ChaosAction.STORAGE_HEAL) {
                        stores.forEach(FaultInjectingBlobStore::heal); // a new fault replaces the old one
                    }
                    storageMode = step.action();
                    storageTimeline.add(new long[] {System.currentTimeMillis(),
                            step.action() == ChaosAction.STORAGE_HEAL ? 0 : 1});
                    stores.forEach(s -> apply(s, step.action()));
                }
                case REVOKE_LEADERSHIP -> ha.revoke(cluster, ids.get(step.job()));
                case CORRUPT_STATE_FILE -> {
                    if (corruptStateFile(step, ids.get(step.job()))) {
                        ChaosCounter.armFailure(tags.get(step.job())); // a restore, most likely from the corrupt checkpoint
                    }
                }
                case CANCEL -> {
                    cancelled.put(step.job(), true);
                    cluster.dispatcher().cancelJob(ids.get(step.job())).exceptionally(e -> {
                        LOG.info("chaos seed={}: cancel of job {} answered {}", plan.seed(), step.job(), e.toString());
                        return null;
                    });
                }
            }
        } catch (Exception e) {
            LOG.warn("chaos seed={}: step {} failed: {}", plan.seed(), step, e.toString());
        }
    }

    /**
     * Scheduler thread: flips one byte of a {@code .state} file of the job's newest checkpoint in
     * checkpoint storage (directly on disk, as a failing disk would; the choice of file and byte comes
     * from the plan's seed), leaving at least one other intact retained checkpoint (one that the job's
     * HA pointers name). Nothing happens if the job has no state file yet or fewer than two intact
     * retained checkpoints, or if retention removed the checkpoint meanwhile. Returns whether a file
     * was corrupted.
     */
    private boolean corruptStateFile(ChaosPlan.Step step, JobId id) throws Exception {
        java.util.Random random = new java.util.Random(plan.seed() * 31 + step.atMillis());
        Path jobDir = checkpointRoot.resolve(id.value());
        List<String> chks = new ArrayList<>(list(jobDir).stream().filter(n -> n.startsWith("chk-")).toList());
        chks.sort(java.util.Comparator.comparingLong((String n) -> Long.parseLong(n.substring(4))).reversed());
        List<String> already = corrupted.getOrDefault(step.job(), List.of());
        // Retained means named by a pointer: a chk-N with _metadata but no pointer (its pointer write failed
        // in doubt and did not land, so its files were kept) is nothing a restore falls back to.
        java.util.Set<Long> retained = new java.util.HashSet<>();
        for (String pointer : ha.pointers(id)) {
            retained.add(Long.parseLong(pointer));
        }
        chks.removeIf(chk -> !retained.contains(Long.parseLong(chk.substring(4)))
                || !Files.exists(jobDir.resolve(chk).resolve("_metadata")) // not completed (yet)
                || already.stream().anyMatch(c -> c.startsWith(chk + "/")));
        if (chks.size() < 2) {
            // Corrupting the only intact checkpoint would leave none to fall back to: the job would
            // rightly wait for repaired files (never start from empty state), which no plan step repairs.
            LOG.info("chaos seed={}: job {} has {} intact retained checkpoint(s); not corrupting", plan.seed(),
                    step.job(), chks.size());
            return false;
        }
        for (String chk : chks) {
            Path cp = jobDir.resolve(chk);
            // Keyed state files, or (RocksDB, incremental) RocksDB's files of this checkpoint only: its table files
            // are shared with other retained checkpoints, so corrupting one could leave no intact checkpoint.
            List<String> files = list(cp).stream().filter(n -> n.endsWith(".state")
                    || (settings.backend() == io.sluice.config.StateBackendType.ROCKSDB && !n.equals("_metadata")
                    && !n.endsWith(".opstate") && !n.startsWith("."))).toList();
            if (files.isEmpty()) {
                continue; // all its state is inline
            }
            Path file = cp.resolve(files.get(random.nextInt(files.size())));
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                    java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
                long size = ch.size();
                if (size == 0) {
                    continue;
                }
                long at = (long) (random.nextDouble() * size);
                java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
                ch.read(b, at);
                b.flip();
                byte flipped = (byte) (b.get(0) ^ (1 << random.nextInt(8)));
                ch.write(java.nio.ByteBuffer.wrap(new byte[] {flipped}), at);
            } catch (java.nio.file.NoSuchFileException e) {
                LOG.info("chaos seed={}: {} was removed before it could be corrupted", plan.seed(), file);
                return false;
            }
            String what = chk + "/" + file.getFileName();
            corrupted.computeIfAbsent(step.job(), k -> new CopyOnWriteArrayList<>()).add(what);
            LOG.info("chaos seed={}: corrupted {} of job {}", plan.seed(), what, step.job());
            return true;
        }
        LOG.info("chaos seed={}: job {} has no completed checkpoint with a state file to corrupt", plan.seed(),
                step.job());
        return false;
    }

    /** Scheduler thread: the most completed checkpoints each job's status has reported. */
    private void poll(LocalCluster cluster, List<JobId> ids) {
        for (int j = 0; j < ids.size(); j++) {
            try {
                JobDetails details = cluster.dispatcher().requestJobDetails(ids.get(j)).get(2, TimeUnit.SECONDS);
                if (details.checkpoints() != null) {
                    maxCompleted.merge(j, details.checkpoints().completed(), Math::max);
                }
                lastStatus.put(j, describe(details));
                String failure = details.failureMessage();
                if (failure != null && failure.contains(" is unusable")) { // the job master's fallback message
                    unusableRestores.computeIfAbsent(j, k -> ConcurrentHashMap.newKeySet())
                            .add(failure.length() > 300 ? failure.substring(0, 300) + "..." : failure);
                }
            } catch (Exception e) {
                // a status that cannot be answered now is asked again at the next poll
            }
        }
    }

    /** A job's status in one line: state, failure message and, while recovering, what recovery does. */
    private static String describe(JobDetails details) {
        StringBuilder b = new StringBuilder(details.status().name());
        if (details.failureMessage() != null) {
            b.append(" (").append(details.failureMessage()).append(')');
        }
        io.sluice.protocol.RecoveryStatus r = details.recovery();
        if (r != null) {
            b.append("; recovery: ").append(r.phase()).append(", attempt ").append(r.attempt())
                    .append(", pointers found ").append(r.pointersFound());
            if (r.lastError() != null) {
                b.append(", last error: ").append(r.lastError());
            }
            if (!r.events().isEmpty()) {
                b.append(", events: ").append(r.events());
            }
        }
        return b.toString();
    }

    /**
     * Whether checkpoint storage was down at {@code millis} or within the second after it (while an
     * ended job's runner deletes its checkpoints).
     */
    private static boolean finishedJobsCleanedUp(List<JobId> ids, List<JobResult> results, Path checkpoints)
            throws IOException {
        for (int j = 0; j < ids.size(); j++) {
            if (results.get(j) != null && results.get(j).status() == io.sluice.job.JobStatus.FINISHED
                    && !list(checkpoints.resolve(ids.get(j).value())).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    private boolean storageDownAround(long millis) {
        boolean down = false;
        for (long[] change : storageTimeline) {
            if (change[0] <= millis) {
                down = change[1] == 1;
            } else if (change[0] <= millis + 1_000 && change[1] == 1) {
                return true;
            }
        }
        return down;
    }

    private static boolean noNewDeployments(List<JobResult> results, List<String> tags, Map<Integer, Integer> before) {
        for (int j = 0; j < tags.size(); j++) {
            if (results.get(j) != null && DeploymentLog.spans(tags.get(j)).size() != before.get(j)) {
                return false;
            }
        }
        return true;
    }

    private JobResult awaitResult(LocalCluster cluster, JobId id) throws Exception {
        try {
            return cluster.dispatcher().requestJobResult(id).get(settings.endTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return null;
        }
    }

    private static List<String> list(Path d) throws IOException {
        if (!Files.isDirectory(d)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(d)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
