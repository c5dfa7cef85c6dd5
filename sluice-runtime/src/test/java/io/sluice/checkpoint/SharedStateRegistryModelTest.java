package io.sluice.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.coordinator.CheckpointCoordinator;
import io.sluice.config.RestartStrategyConfig.NoRestart;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.ha.LeaderContender;
import io.sluice.ha.RecoveryListener;
import io.sluice.ha.embedded.DefaultCompletedCheckpointStore;
import io.sluice.ha.embedded.FileCheckpointPointerStore;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.JobStatus;
import io.sluice.state.IncrementalStateHandle;
import io.sluice.state.IncrementalStateHandle.StateFile;
import io.sluice.state.KeyGroupRange;
import io.sluice.storage.BlobStore;
import io.sluice.storage.ForwardingBlobStore;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingLeaderElection;
import io.sluice.util.ManualClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A seeded model-based test of the {@link SharedStateRegistry} as the job manager uses it: the real
 * {@link CheckpointCoordinator} (manual main thread, an I/O executor the test runs task by task, a
 * manual clock), real {@link CheckpointStorage} on local files, the real HA checkpoint store
 * ({@link DefaultCompletedCheckpointStore} with file pointers). Only the tasks are models: each behaves
 * like RocksDB's incremental checkpoints (live table files that compactions replace; a snapshot refers to
 * the uploads of the checkpoint it was last told completed, and uploads the rest under unique names; a
 * confirmation that arrives after a later snapshot is not adopted).
 *
 * <p>Random steps: compactions, periodic triggers and timeouts (clock), barriers reaching tasks (which
 * upload), acknowledgements delivered, completion notices delivered late and out of order with barriers,
 * declines, uploads whose acknowledgement is lost, I/O tasks run a few at a time, task failovers (restore
 * from the latest checkpoint, which is pinned until the restore finished), and job-manager failovers (the
 * old one's queued I/O and main-thread work is lost; a new leadership session recovers the store and a new
 * coordinator). Checked against a simple model:
 * <ul>
 *   <li>after every step: every object a retained checkpoint's metadata refers to (and the restoring one's,
 *       and the files a still-pending checkpoint's acknowledgements refer to) is in storage;</li>
 *   <li>a job-manager failover reads exactly one metadata file (the latest checkpoint's), no state file,
 *       and lists nothing;</li>
 *   <li>whenever the I/O queue is drained, every shared object in storage is referred to by a retained,
 *       restoring or pending checkpoint, or is the upload of a checkpoint that never completed and whose
 *       clean-up a crash or a lost acknowledgement prevented (never a file of a completed checkpoint), and
 *       such an upload is gone once a later checkpoint completed under the job master that recovered below
 *       it; so is the own directory ({@code chk-<id>/}) of an earlier session's checkpoint that never
 *       completed, above the one the current session recovered;</li>
 *   <li>at the end, every checkpoint subsumed, then the job cancelled: no object is left in storage.</li>
 * </ul>
 *
 * <p>Each run prints its seed; {@code -Dsluice.test.seed=S} replays from S.
 */
class SharedStateRegistryModelTest {
    private static final JobId JOB = JobId.of("0123456789abcdef0123456789abcdef");
    private static final int VERTEX = 2;
    private static final int TASKS = 3;
    private static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final Duration TIMEOUT = Duration.ofMinutes(1);

    /** On a RAM disk where there is one: every upload is forced to disk, and each run makes thousands. */
    @TempDir(factory = RamDiskWhereAvailable.class)
    Path root;

    static final class RamDiskWhereAvailable implements org.junit.jupiter.api.io.TempDirFactory {
        @Override
        public Path createTempDirectory(org.junit.jupiter.api.extension.AnnotatedElementContext element,
                                        org.junit.jupiter.api.extension.ExtensionContext context) throws Exception {
            Path shm = Path.of("/dev/shm");
            return Files.isDirectory(shm) && Files.isWritable(shm)
                    ? Files.createTempDirectory(shm, "sluice-model-") : Files.createTempDirectory("sluice-model-");
        }
    }

    static Stream<Long> seeds() {
        long base = Long.getLong("sluice.test.seed", 20261203L);
        int runs = Integer.getInteger("sluice.test.runs", 20);
        return LongStream.range(0, runs).mapToObj(i -> base + i);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void noFileARetainedCheckpointRefersToIsDeletedAndNoneOfACompletedOneIsLeft(long seed) throws Exception {
        System.out.println("SharedStateRegistryModelTest seed " + seed + " (replay: -Dsluice.test.seed=" + seed
                + " -Dsluice.test.runs=1)");
        Run run = new Run(seed);
        int steps = 600 + run.random.nextInt(400);
        for (int i = 0; i < steps; i++) {
            run.step();
        }
        run.finish();
    }

    /** A blob store that counts what recovery must not do. */
    private static final class CountingBlobStore extends ForwardingBlobStore {
        final AtomicLong lists = new AtomicLong();
        final List<String> gets = new ArrayList<>();

        CountingBlobStore(BlobStore delegate) {
            super(delegate);
        }

        @Override
        public synchronized byte[] get(String path) {
            gets.add(path);
            return super.get(path);
        }

        @Override
        public synchronized java.io.InputStream openRead(String path) {
            gets.add(path);
            return super.openRead(path);
        }

        @Override
        public List<String> list(String prefix) {
            lists.incrementAndGet();
            return super.list(prefix);
        }
    }

    /** The job master's I/O executor: run by the test a few tasks at a time, FIFO; a crash drops what is queued. */
    private static final class StepExecutor implements Executor {
        final ArrayDeque<Runnable> queue = new ArrayDeque<>();

        @Override
        public synchronized void execute(Runnable command) {
            queue.add(command);
        }

        synchronized Runnable next() {
            return queue.poll();
        }
    }

    /** One subtask's RocksDB as far as its checkpoints go. */
    private static final class ModelTask {
        final int index;
        int attempt;
        final TreeSet<String> live = new TreeSet<>();
        int nextFile;
        /** Local name to path: the uploads of the checkpoint it adopted as confirmed. */
        Map<String, String> confirmed = Map.of();
        long lastSnapshotId = -1;
        final Map<Long, Map<String, String>> pendingUploads = new HashMap<>();
        final ArrayDeque<Long> barriers = new ArrayDeque<>();
        final ArrayDeque<Long> notices = new ArrayDeque<>();
        /** Acknowledgements on their way: checkpoint id and handle. */
        final ArrayDeque<Map.Entry<Long, TaskStateHandle>> acks = new ArrayDeque<>();

        ModelTask(int index) {
            this.index = index;
        }

        ExecutionAttemptId attemptId() {
            return new ExecutionAttemptId(JOB, VERTEX, index, attempt);
        }

        String newFile() {
            return String.format("%06d.sst", nextFile++);
        }
    }

    private final class Run {
        final long seed;
        final Random random;
        final int retained;
        final Path storageDir = root.resolve("storage");
        final CountingBlobStore blobs = new CountingBlobStore(new LocalFileBlobStore(storageDir));
        final CheckpointStorage storage = new CheckpointStorage(blobs, new SimpleMeterRegistry());
        /** Reads metadata for the checks, outside the counted storage. */
        final CheckpointStorage inspector = new CheckpointStorage(new LocalFileBlobStore(storageDir),
                new SimpleMeterRegistry());
        final FileCheckpointPointerStore pointers = new FileCheckpointPointerStore(root.resolve("ha"));
        final TestingLeaderElection election = new TestingLeaderElection("model");
        final InMemoryCheckpointIdCounter ids = new InMemoryCheckpointIdCounter(1);
        final JobConfig config;
        final Path localFile;
        final List<ModelTask> tasks = new ArrayList<>();
        final Map<Long, CompletedCheckpoint> metadata = new HashMap<>();
        /** Every shared upload: path to the checkpoint it was uploaded for. */
        final Map<String, Long> uploads = new HashMap<>();
        /** Ids of checkpoints whose pointer was ever written. */
        final Set<Long> completed = new HashSet<>();
        /** Uploads of checkpoints that never completed whose clean-up was prevented (crash, lost acknowledgement). */
        final Set<String> mayStay = new HashSet<>();
        final List<String> log = new ArrayList<>();

        ManualClock clock;
        ManuallyTriggeredMainThreadExecutor main;
        StepExecutor io;
        DefaultCompletedCheckpointStore store;
        CheckpointCoordinator coordinator;
        /** The checkpoint the current deployment restores from until the restore finished, or null. */
        CompletedCheckpoint restoring;
        long lastTriggered = -1;
        int sessions;
        /** The highest checkpoint id the current session's job master recovered (0 for none). */
        long recoveredInSession;
        /** The highest checkpoint id the current session's coordinator completed (0 for none). */
        long completedInSession;
        /** The first checkpoint id the current session's coordinator triggered (none: the maximum). */
        long firstTriggeredInSession = Long.MAX_VALUE;

        Run(long seed) throws Exception {
            this.seed = seed;
            this.random = new Random(seed);
            this.retained = 1 + random.nextInt(3);
            this.config = new JobConfig(INTERVAL, TIMEOUT, retained, 1_000_000, storageDir.toString(),
                    new NoRestart(), true);
            Files.createDirectories(root);
            this.localFile = Files.write(root.resolve("table-file"), new byte[] {1, 2, 3});
            for (int i = 0; i < TASKS; i++) {
                ModelTask t = new ModelTask(i);
                for (int f = 0; f < 3; f++) {
                    t.live.add(t.newFile());
                }
                tasks.add(t);
            }
            election.startLeaderElection(new LeaderContender() {
                @Override
                public void grantLeadership(UUID leaderSessionId) {
                }

                @Override
                public void revokeLeadership() {
                }

                @Override
                public String description() {
                    return "the model's job masters";
                }
            });
            startSession();
        }

        /** A new leadership session: the store recovered from the pointers and the latest metadata, a new coordinator. */
        void startSession() throws Exception {
            sessions++;
            clock = new ManualClock();
            main = new ManuallyTriggeredMainThreadExecutor("model-" + sessions, clock);
            io = new StepExecutor();
            UUID session = election.grant();
            long metadataReads = storage.metadataReads();
            long stateReads = storage.stateReads();
            long lists = blobs.lists.get();
            int gets = blobs.gets.size();
            store = DefaultCompletedCheckpointStore.recover(pointers, JOB, retained, storage, election, session, true,
                    new RecoveryListener() { });
            CompletedCheckpointStore recovered = store;
            recoveredInSession = Math.max(store.latest().map(CompletedCheckpoint::checkpointId).orElse(0L),
                    store.retainedIds().stream().mapToLong(Long::longValue).max().orElse(0L));
            completedInSession = 0;
            firstTriggeredInSession = Long.MAX_VALUE;
            Context context = new Context();
            onMain(() -> coordinator = new CheckpointCoordinator(JOB, config, storage, recovered, ids, main, io, clock,
                    context, () -> election.hasLeadership(session)));
            List<String> read = List.copyOf(blobs.gets.subList(gets, blobs.gets.size()));
            if (store.latest().isPresent()) {
                assertThat(storage.metadataReads() - metadataReads).as(context("metadata reads of a recovery"))
                        .isEqualTo(1);
                assertThat(read).as(context("objects read by a recovery"))
                        .containsExactly(store.latest().get().metadataPath());
            } else {
                assertThat(read).as(context("objects read by a recovery without checkpoints")).isEmpty();
            }
            assertThat(storage.stateReads() - stateReads).as(context("state reads of a recovery")).isZero();
            assertThat(blobs.lists.get() - lists).as(context("listings of a recovery")).isZero();
            onMain(coordinator::start);
            redeploy();
        }

        /** The tasks restart from the latest checkpoint (pinned while they read it), or empty. */
        void redeploy() {
            CompletedCheckpoint latest = store.latest().orElse(null);
            restoring = latest;
            if (latest != null) {
                onMain(() -> coordinator.restoreStarting(latest.checkpointId()));
            }
            for (ModelTask t : tasks) {
                t.attempt++;
                t.acks.forEach(a -> lost(a.getValue()));
                t.acks.clear();
                t.barriers.clear();
                t.notices.clear();
                t.pendingUploads.clear();
                t.confirmed = Map.of(); // the first checkpoint after a restore uploads every file again
                t.lastSnapshotId = -1;
                if (latest != null) {
                    t.live.clear();
                    latest.stateOf(VERTEX, t.index).incremental().sharedFiles().forEach(f -> t.live.add(f.localName()));
                }
            }
            if (latest == null) {
                restoring = null;
            }
        }

        void step() throws Exception {
            int r = random.nextInt(400);
            if (r < 60) {
                compact();
            } else if (r < 100) {
                main.advanceTime(INTERVAL);
                main.triggerAll();
            } else if (r < 180) {
                barrier();
            } else if (r < 260) {
                deliverAck();
            } else if (r < 290) {
                deliverNotice(); // rarer than barriers: notices queue up and barriers overtake them
            } else if (r < 380) {
                runIo(1 + random.nextInt(4));
            } else if (r < 382) {
                main.advanceTime(TIMEOUT);
                main.triggerAll();
            } else if (r < 385) {
                decline();
            } else if (r < 391) {
                if (restoring != null) {
                    onMain(coordinator::restoreFinished);
                    restoring = null;
                    log.add("restore finished");
                }
            } else if (r < 394) {
                onMain(coordinator::abortPendingOnFailover);
                redeploy();
                log.add("task failover, restoring " + (restoring == null ? "nothing" : restoring.checkpointId()));
            } else if (r < 396) {
                failOver();
            } else {
                // A quiet moment: everything queued runs (so that the leak check runs too).
                drain();
            }
            noteCompleted();
            checkNothingNeededIsDeleted();
            if (io.queue.isEmpty() && main.numQueued() == 0) {
                checkNothingLeaked();
            }
        }

        void compact() {
            ModelTask t = tasks.get(random.nextInt(TASKS));
            List<String> live = new ArrayList<>(t.live);
            int merged = Math.min(live.size(), random.nextInt(3));
            for (int i = 0; i < merged; i++) {
                t.live.remove(live.get(random.nextInt(live.size())));
            }
            int added = 1 + random.nextInt(2);
            for (int i = 0; i < added; i++) {
                t.live.add(t.newFile());
            }
            log.add("compact " + t.index + " -> " + t.live);
        }

        /** A task takes its snapshot for the oldest barrier it has and uploads it; its acknowledgement may be lost. */
        void barrier() {
            ModelTask t = pick(x -> !x.barriers.isEmpty());
            Long id = t.barriers.poll();
            if (id == null) {
                return;
            }
            TaskStateHandle handle = snapshot(t, id);
            if (random.nextInt(25) == 0) {
                lost(handle); // the task crashed while uploading: nobody hears of these files
                log.add("task " + t.index + " uploaded for " + id + ", acknowledgement lost");
            } else {
                t.acks.add(Map.entry(id, handle));
                log.add("task " + t.index + " snapshot " + id);
            }
        }

        /** A random task with something to do, else any. */
        ModelTask pick(java.util.function.Predicate<ModelTask> busy) {
            List<ModelTask> candidates = tasks.stream().filter(busy).toList();
            return candidates.isEmpty() ? tasks.get(random.nextInt(TASKS))
                    : candidates.get(random.nextInt(candidates.size()));
        }

        void lost(TaskStateHandle handle) {
            handle.incremental().sharedFiles().forEach(f -> {
                Long uploadedFor = uploads.get(f.path());
                if (uploadedFor != null && !completed.contains(uploadedFor)) {
                    mayStay.add(f.path());
                }
            });
        }

        void deliverAck() {
            ModelTask t = pick(x -> !x.acks.isEmpty());
            Map.Entry<Long, TaskStateHandle> ack = t.acks.poll();
            if (ack == null) {
                return;
            }
            long id = ack.getKey();
            if (id == lastTriggered && onMain(coordinator::hasPendingCheckpoint)) {
                for (StateFile f : ack.getValue().incremental().sharedFiles()) {
                    assertThat(Files.exists(object(f.path())))
                            .as(context("task " + t.index + " refers in " + id + " to " + f.path())).isTrue();
                }
            }
            ExecutionAttemptId attempt = t.attemptId();
            onMain(() -> coordinator.acknowledgeCheckpoint(attempt, id, ack.getValue()));
            log.add("ack " + id + " from " + t.index);
        }

        void deliverNotice() {
            ModelTask t = pick(x -> !x.notices.isEmpty());
            if (t.notices.isEmpty()) {
                return;
            }
            long id = t.notices.peek();
            boolean adopted = deliverNoticeOf(t);
            log.add("task " + t.index + " told " + id + (adopted ? " (adopted)" : ""));
        }

        void decline() {
            if (lastTriggered < 0) {
                return;
            }
            ModelTask t = tasks.get(random.nextInt(TASKS));
            ExecutionAttemptId attempt = t.attemptId();
            long id = lastTriggered;
            onMain(() -> coordinator.declineCheckpoint(attempt, id, new RuntimeException("declined by the model")));
            log.add("task " + t.index + " declined " + id);
        }

        void runIo(int n) {
            for (int i = 0; i < n; i++) {
                Runnable task = io.next();
                if (task == null) {
                    break;
                }
                task.run();
                main.triggerAll();
            }
        }

        /** The job manager dies: its queued I/O and main-thread work are lost; a new one leads. */
        void failOver() throws Exception {
            io.queue.clear();
            election.revoke();
            for (ModelTask t : tasks) {
                t.acks.forEach(a -> lost(a.getValue()));
                t.acks.clear();
            }
            // Whatever was on its way to deletion is gone with the old job manager: uploads of checkpoints that
            // never completed may stay.
            for (Map.Entry<String, Long> u : uploads.entrySet()) {
                if (!completed.contains(u.getValue()) && Files.exists(object(u.getKey()))) {
                    mayStay.add(u.getKey());
                }
            }
            log.add("job manager failover");
            startSession();
        }

        void noteCompleted() {
            completed.addAll(store.retainedIds());
        }

        CompletedCheckpoint metadataOf(long id) {
            return metadata.computeIfAbsent(id, i -> inspector.readMetadata(inspector.metadataPath(JOB, i)));
        }

        Set<String> neededFiles() {
            Set<String> needed = new HashSet<>();
            for (long id : store.retainedIds()) {
                CompletedCheckpoint cp = metadataOf(id);
                needed.add(cp.metadataPath());
                for (TaskStateHandle h : cp.taskStates()) {
                    h.incremental().sharedFiles().forEach(f -> needed.add(f.path()));
                    h.incremental().privateFiles().forEach(f -> needed.add(f.path()));
                }
            }
            if (restoring != null) {
                needed.addAll(restoring.sharedFiles());
            }
            return needed;
        }

        void checkNothingNeededIsDeleted() {
            for (String path : neededFiles()) {
                assertThat(Files.exists(object(path))).as(context("needed by a retained or restoring checkpoint: " + path))
                        .isTrue();
            }
        }

        /** With nothing queued: each shared object is needed, pending, or an upload that may stay. */
        void checkNothingLeaked() {
            Set<String> explained = neededFiles();
            explained.addAll(mayStay);
            for (ModelTask t : tasks) {
                // Acknowledgements not delivered yet: the coordinator has not heard of these files.
                t.acks.forEach(a -> a.getValue().incremental().sharedFiles().forEach(f -> explained.add(f.path())));
            }
            if (onMain(coordinator::hasPendingCheckpoint)) {
                // Acknowledged to the pending checkpoint: still needed (the model does not see which ones, so any
                // upload for it).
                uploads.forEach((path, id) -> {
                    if (id == lastTriggered) {
                        explained.add(path);
                    }
                });
            }
            for (String path : sharedObjects()) {
                assertThat(explained).as(context("a shared file nothing refers to (uploaded for checkpoint "
                        + uploads.get(path) + ", completed: " + completed.contains(uploads.get(path)) + ")"))
                        .contains(path);
                // What a crash left for a checkpoint that never completed goes once a later one completes, unless
                // the job manager that would have deleted it failed over first (its sweep was lost with it).
                long uploadedFor = uploads.get(path);
                assertThat(!completed.contains(uploadedFor) && uploadedFor > recoveredInSession
                        && uploadedFor < completedInSession)
                        .as(context("an abandoned upload " + path + " for checkpoint " + uploadedFor
                                + ", after checkpoint " + completedInSession + " completed in this session (which"
                                + " recovered through " + recoveredInSession + ")"))
                        .isFalse();
            }
            // The own directory of a previous session's checkpoint that never completed goes once this session
            // completed a later one.
            for (long id : checkpointDirectories()) {
                assertThat(!completed.contains(id) && id > recoveredInSession && id < firstTriggeredInSession
                        && id < completedInSession)
                        .as(context("the directory of checkpoint " + id + ", triggered by an earlier session and never"
                                + " completed, after checkpoint " + completedInSession + " completed in this session"
                                + " (which recovered through " + recoveredInSession + " and first triggered "
                                + firstTriggeredInSession + ")"))
                        .isFalse();
            }
        }

        /** Stops checkpointing, lets retention subsume everything, then cancels the job: nothing may be left. */
        void finish() throws Exception {
            System.out.println("Seed " + seed + ": " + completed.size() + " checkpoints completed in " + sessions
                    + " leadership sessions, " + lastTriggered + " triggered");
            main.advanceTime(TIMEOUT); // a checkpoint still pending (an acknowledgement was lost) times out
            main.triggerAll();
            drain();
            if (restoring != null) {
                onMain(coordinator::restoreFinished);
                restoring = null;
            }
            // New state in every task, and checkpoints until the old ones are subsumed.
            for (ModelTask t : tasks) {
                t.live.clear();
                t.live.add(t.newFile());
            }
            for (int i = 0; i <= retained; i++) {
                completeOne();
            }
            drain();
            noteCompleted();
            checkNothingNeededIsDeleted();
            checkNothingLeaked();
            Set<String> needed = neededFiles();
            Set<String> left = new TreeSet<>(sharedObjects());
            left.removeAll(needed);
            assertThat(mayStay).as(context("no upload of a completed checkpoint may stay"))
                    .noneMatch(p -> completed.contains(uploads.get(p)));
            assertThat(left).as(context("only uploads of checkpoints that never completed may be left"))
                    .allMatch(mayStay::contains);
            onMain(() -> coordinator.stop("cancelled"));
            drain();
            store.shutdown(JobStatus.CANCELED, true);
            assertThat(countObjects()).as(context("objects in storage once the cancelled job's checkpoints are"
                    + " discarded")).isZero();
        }

        void completeOne() {
            long before = lastTriggered;
            for (int i = 0; i < 20 && !(lastTriggered > before && onMain(coordinator::hasPendingCheckpoint)); i++) {
                main.advanceTime(INTERVAL);
                main.triggerAll();
                drain();
            }
            long id = lastTriggered;
            assertThat(id).as(context("a final checkpoint is triggered")).isGreaterThan(before);
            for (ModelTask t : tasks) {
                while (!t.barriers.isEmpty()) {
                    long next = t.barriers.poll();
                    t.acks.add(Map.entry(next, snapshot(t, next))); // the final phase loses nothing
                    if (next == id) {
                        break;
                    }
                }
                while (!t.acks.isEmpty()) {
                    Map.Entry<Long, TaskStateHandle> ack = t.acks.poll();
                    ExecutionAttemptId attempt = t.attemptId();
                    onMain(() -> coordinator.acknowledgeCheckpoint(attempt, ack.getKey(), ack.getValue()));
                }
            }
            drain();
            assertThat(store.latest()).as(context("the final checkpoint " + id + " completes (" + onMain(coordinator::stats)
                    + ", pending " + onMain(coordinator::hasPendingCheckpoint) + ")")).get()
                    .extracting(CompletedCheckpoint::checkpointId).isEqualTo(id);
            for (ModelTask t : tasks) {
                while (!t.notices.isEmpty()) {
                    deliverNoticeOf(t);
                }
            }
        }

        /** The task's snapshot for checkpoint {@code id}: new table files uploaded, its confirmed ones referred to. */
        TaskStateHandle snapshot(ModelTask t, long id) {
            t.lastSnapshotId = Math.max(t.lastSnapshotId, id);
            List<StateFile> shared = new ArrayList<>();
            Map<String, String> used = new HashMap<>();
            for (String name : t.live) {
                String path = t.confirmed.get(name);
                if (path == null) {
                    path = storage.writeSharedFile(JOB, id, VERTEX, t.index, name, localFile);
                    uploads.put(path, id);
                }
                shared.add(new StateFile(name, path, 3));
                used.put(name, path);
            }
            String manifest = storage.writePrivateFile(JOB, id, VERTEX, t.index, "MANIFEST-000001", localFile);
            t.pendingUploads.put(id, used);
            return TaskStateHandle.incremental(VERTEX, t.index, new IncrementalStateHandle(
                    KeyGroupRange.of(t.index, t.index), 128, new byte[] {1}, shared,
                    List.of(new StateFile("MANIFEST-000001", manifest, 3))), null);
        }

        /** As the RocksDB backend: adopts the uploads of the checkpoint it is told of, unless it snapshotted a later one. */
        boolean deliverNoticeOf(ModelTask t) {
            long id = t.notices.poll();
            Map<String, String> files = t.pendingUploads.remove(id);
            boolean adopt = files != null && t.lastSnapshotId <= id;
            if (adopt) {
                t.confirmed = files;
            }
            t.pendingUploads.keySet().removeIf(k -> k < id);
            return adopt;
        }

        void drain() {
            for (int guard = 0; guard < 10_000 && (!io.queue.isEmpty() || main.numQueued() > 0); guard++) {
                main.triggerAll();
                runIo(1);
            }
        }

        Path object(String path) {
            return storageDir.resolve(path);
        }

        List<String> sharedObjects() {
            Path dir = storageDir.resolve(SharedStateRegistry.sharedDirectory(JOB));
            if (!Files.isDirectory(dir)) {
                return List.of();
            }
            try (Stream<Path> files = Files.list(dir)) {
                return files.map(p -> storageDir.relativize(p).toString().replace('\\', '/')).toList();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** The ids of the checkpoint directories ({@code <job>/chk-<id>/}) that hold a file. */
        List<Long> checkpointDirectories() {
            Path dir = storageDir.resolve(JOB.value());
            if (!Files.isDirectory(dir)) {
                return List.of();
            }
            try (Stream<Path> entries = Files.list(dir)) {
                return entries.filter(p -> p.getFileName().toString().startsWith("chk-"))
                        .filter(SharedStateRegistryModelTest::holdsAFile)
                        .map(p -> Long.parseLong(p.getFileName().toString().substring("chk-".length())))
                        .toList();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        long countObjects() throws IOException {
            if (!Files.isDirectory(storageDir)) {
                return 0;
            }
            try (Stream<Path> files = Files.walk(storageDir)) {
                return files.filter(Files::isRegularFile).count();
            }
        }

        void onMain(Runnable r) {
            main.execute(r);
            main.triggerAll();
        }

        <T> T onMain(java.util.function.Supplier<T> fn) {
            Object[] result = new Object[1];
            main.execute(() -> result[0] = fn.get());
            main.triggerAll();
            @SuppressWarnings("unchecked")
            T t = (T) result[0];
            return t;
        }

        String context(String what) {
            return "seed " + seed + " (retained " + retained + ", session " + sessions + "): " + what
                    + "; last steps: " + log.subList(Math.max(0, log.size() - 12), log.size());
        }

        /** The job master's view of the tasks: all are triggered (as sources) and acknowledge. */
        private final class Context implements CheckpointCoordinator.Context {
            @Override
            public boolean canTriggerCheckpoint() {
                return true;
            }

            @Override
            public List<ExecutionAttemptId> tasksToTrigger() {
                return tasks.stream().map(ModelTask::attemptId).toList();
            }

            @Override
            public List<ExecutionAttemptId> tasksToAcknowledge() {
                return tasksToTrigger();
            }

            @Override
            public List<TaskStateHandle> finishedTaskStates() {
                return List.of();
            }

            @Override
            public void triggerTask(ExecutionAttemptId task, long checkpointId, long timestampMillis) {
                lastTriggered = checkpointId;
                firstTriggeredInSession = Math.min(firstTriggeredInSession, checkpointId);
                ModelTask t = tasks.get(task.subtaskIndex());
                if (t.attempt == task.deployment()) {
                    t.barriers.add(checkpointId);
                }
                log.add("trigger " + checkpointId + " -> " + task.subtaskIndex());
            }

            @Override
            public void notifyTaskCheckpointComplete(ExecutionAttemptId task, long checkpointId) {
                completedInSession = Math.max(completedInSession, checkpointId);
                completed.add(checkpointId); // its pointer was written (retention may have dropped it already)
                ModelTask t = tasks.get(task.subtaskIndex());
                if (t.attempt == task.deployment()) {
                    t.notices.add(checkpointId);
                }
            }

            @Override
            public void failJob(Throwable cause) {
                throw new AssertionError(context("the job failed: " + cause), cause);
            }
        }
    }

    private static boolean holdsAFile(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.anyMatch(Files::isRegularFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
