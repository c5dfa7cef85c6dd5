package io.sluice.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.config.Configuration;
import io.sluice.core.serialization.Serializers;
import io.sluice.state.IncrementalKeyedStateSnapshot;
import io.sluice.state.IncrementalStateHandle;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyGroups;
import io.sluice.state.KeyedStateBackendParameters;
import io.sluice.util.ManualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Changelog checkpoints ({@code state.backend.rocksdb.changelog.materialize-every}): between materialisations a
 * checkpoint uploads only the changelog of the writes since the checkpoint before, and a restore of any checkpoint
 * (whole, or rescaled to other key groups) replays it onto the materialised files into exactly the state the
 * backend held when the checkpoint was taken.
 */
class RocksDbChangelogCheckpointTest {
    private static final int MAX_PARALLELISM = 32;
    private static final KeyGroupRange ALL = KeyGroupRange.of(0, MAX_PARALLELISM - 1);
    private static final ValueStateDescriptor<Long> VALUE = new ValueStateDescriptor<>("v", Serializers.LONG);
    private static final ListStateDescriptor<Long> LIST = new ListStateDescriptor<>("l", Serializers.LONG);
    private static final MapStateDescriptor<Long, String> MAP = new MapStateDescriptor<>("m", Serializers.LONG,
            Serializers.STRING);

    @TempDir
    Path dir;
    private RocksDbStateBackend stateBackend;
    private final List<RocksDbKeyedStateBackend> opened = new ArrayList<>();

    /** Checkpoint storage on a local directory, recording what is uploaded. */
    class LocalFiles extends LocalCheckpointFiles {
        LocalFiles() {
            super(dir.resolve("storage"));
        }
    }


    @AfterEach
    void close() {
        opened.forEach(RocksDbKeyedStateBackend::close);
        if (stateBackend != null) {
            stateBackend.close();
        }
    }

    private RocksDbKeyedStateBackend open(KeyGroupRange range) {
        return open(range, false);
    }

    private RocksDbKeyedStateBackend open(KeyGroupRange range, boolean localRecovery) {
        if (stateBackend == null) {
            stateBackend = new RocksDbStateBackend(new Configuration()
                    .set(RocksDbOptions.LOCAL_DIR, dir.resolve("local").toString())
                    .set(RocksDbOptions.CHANGELOG_MATERIALIZE_EVERY, 4));
        }
        RocksDbKeyedStateBackend b = (RocksDbKeyedStateBackend) stateBackend.createKeyedStateBackend(
                new KeyedStateBackendParameters("task " + opened.size(), "slot", range, MAX_PARALLELISM,
                        Serializers.LONG, new ManualClock(0), true, localRecovery));
        opened.add(b);
        return b;
    }

    /** A seed, {@code -Dsluice.test.seed} or a new one, printed. */
    private static long seed() {
        long seed = Long.getLong("sluice.test.seed", System.nanoTime());
        System.out.println("RocksDbChangelogCheckpointTest seed " + seed);
        return seed;
    }

    private static IncrementalStateHandle checkpoint(RocksDbKeyedStateBackend b, long id, LocalFiles files) {
        return ((IncrementalKeyedStateSnapshot) b.checkpointSnapshot(id)).upload(files);
    }

    /** What the three states hold, per key: the model the backend is checked against. */
    record Model(Map<Long, Long> values, Map<Long, List<Long>> lists, Map<Long, TreeMap<Long, String>> maps) {
        Model() {
            this(new HashMap<>(), new HashMap<>(), new HashMap<>());
        }

        Model copy() {
            Model c = new Model();
            c.values.putAll(values);
            lists.forEach((k, l) -> c.lists.put(k, new ArrayList<>(l)));
            maps.forEach((k, m) -> c.maps.put(k, new TreeMap<>(m)));
            return c;
        }
    }

    /** One random write to key {@code key}, to the backend and the model alike. */
    private static void randomWrite(RocksDbKeyedStateBackend b, Model model, long key, Random random) {
        ValueState<Long> v = b.getValueState(VALUE);
        ListState<Long> l = b.getListState(LIST);
        MapState<Long, String> m = b.getMapState(MAP);
        b.setCurrentKey(key);
        long x = random.nextInt(1_000_000);
        switch (random.nextInt(8)) {
            case 0, 1 -> {
                v.update(x);
                model.values.put(key, x);
            }
            case 2 -> {
                v.clear();
                model.values.remove(key);
            }
            case 3 -> {
                l.add(x); // a merge
                model.lists.computeIfAbsent(key, k -> new ArrayList<>()).add(x);
            }
            case 4 -> {
                l.update(List.of(x, x + 1));
                model.lists.put(key, new ArrayList<>(List.of(x, x + 1)));
            }
            case 5 -> {
                m.put(x % 4, "s" + x);
                model.maps.computeIfAbsent(key, k -> new TreeMap<>()).put(x % 4, "s" + x);
            }
            case 6 -> {
                m.remove(x % 4);
                TreeMap<Long, String> entries = model.maps.get(key);
                if (entries != null) {
                    entries.remove(x % 4);
                    if (entries.isEmpty()) {
                        model.maps.remove(key);
                    }
                }
            }
            default -> {
                m.clear(); // a write batch
                model.maps.remove(key);
            }
        }
    }

    /** Checks that {@code b} holds exactly what {@code model} holds for the keys of its key groups. */
    private static void check(RocksDbKeyedStateBackend b, Model model, long keys, String when) {
        ValueState<Long> v = b.getValueState(VALUE);
        ListState<Long> l = b.getListState(LIST);
        MapState<Long, String> m = b.getMapState(MAP);
        for (String state : List.of("v", "l", "m")) {
            assertThat(b.keysOf(state)).as("%s: the keys of state %s are all of key groups %s", when, state,
                    b.keyGroupRange()).allMatch(k -> b.keyGroupRange().contains(KeyGroups.keyGroupFor(k, MAX_PARALLELISM)));
        }
        for (long k = 0; k < keys; k++) {
            if (!b.keyGroupRange().contains(KeyGroups.keyGroupFor(k, MAX_PARALLELISM))) {
                continue;
            }
            b.setCurrentKey(k);
            assertThat(v.value()).as("%s: value of key %d", when, k).isEqualTo(model.values.get(k));
            List<Long> list = new ArrayList<>();
            l.get().forEach(list::add);
            assertThat(list).as("%s: list of key %d", when, k).isEqualTo(model.lists.getOrDefault(k, List.of()));
            TreeMap<Long, String> entries = new TreeMap<>();
            m.entries().forEach(e -> entries.put(e.getKey(), e.getValue()));
            assertThat(entries).as("%s: map of key %d", when, k).isEqualTo(model.maps.getOrDefault(k, new TreeMap<>()));
        }
    }

    /**
     * Seeded: random writes of every kind and checkpoints, some confirmed and some not (aborted); every checkpoint
     * restores, whole and split in two (a rescale), into exactly the state it was taken of; between materialisations
     * a checkpoint whose predecessor was confirmed uploads no table file, only changelog.
     */
    @Test
    void everyCheckpointRestoresExactlyWholeOrRescaledAndChangelogCheckpointsUploadNoTableFile() {
        long seed = seed();
        Random random = new Random(seed);
        long keys = 400;
        RocksDbKeyedStateBackend b = open(ALL);
        LocalFiles files = new LocalFiles();
        Model model = new Model();
        List<IncrementalStateHandle> handles = new ArrayList<>();
        List<Model> expected = new ArrayList<>();
        int changelogCheckpoints = 0;
        boolean previousConfirmed = false;
        for (long id = 1; id <= 14; id++) {
            for (int i = 0; i < 300; i++) {
                randomWrite(b, model, random.nextInt((int) keys), random);
            }
            int before = files.sharedUploads.size();
            IncrementalStateHandle h = checkpoint(b, id, files);
            List<String> uploaded = files.sharedUploads.subList(before, files.sharedUploads.size());
            boolean changelog = h.sharedFiles().stream().anyMatch(f -> RocksDbChangelog.isSegment(f.localName()));
            if (changelog) {
                changelogCheckpoints++;
                if (previousConfirmed) {
                    assertThat(uploaded).as("seed %d, checkpoint %d: a changelog checkpoint uploads", seed, id)
                            .allMatch(RocksDbChangelog::isSegment).hasSize(1);
                }
            }
            handles.add(h);
            expected.add(model.copy());
            previousConfirmed = random.nextInt(4) != 0;
            if (previousConfirmed) {
                b.notifyCheckpointComplete(id);
            }
        }
        assertThat(changelogCheckpoints).as("seed %d: 3 of every 4 checkpoints (materialize-every 4)", seed)
                .isGreaterThanOrEqualTo(9);
        for (int i = 0; i < handles.size(); i++) {
            String when = "seed " + seed + ", checkpoint " + (i + 1);
            RocksDbKeyedStateBackend whole = open(ALL);
            whole.restoreIncremental(List.of(handles.get(i)), files);
            check(whole, expected.get(i), keys, when + " restored whole");
            for (int s = 0; s < 2; s++) {
                RocksDbKeyedStateBackend half = open(KeyGroups.rangeForSubtask(s, MAX_PARALLELISM, 2));
                half.restoreIncremental(List.of(handles.get(i)), files);
                check(half, expected.get(i), keys, when + " restored into half " + s);
            }
            whole.close();
        }
    }

    /**
     * A restored backend materialises its first checkpoint (it has no base of its own), and two halves' changelog
     * checkpoints merge back into one backend (2 -> 1) with the writes made after the restore.
     */
    @Test
    void halvesChangelogCheckpointsMergeIntoOne() {
        long seed = seed();
        Random random = new Random(seed);
        long keys = 300;
        RocksDbKeyedStateBackend b = open(ALL);
        LocalFiles files = new LocalFiles();
        Model model = new Model();
        for (int i = 0; i < 500; i++) {
            randomWrite(b, model, random.nextInt((int) keys), random);
        }
        IncrementalStateHandle handle = checkpoint(b, 1, files);
        List<IncrementalStateHandle> halves = new ArrayList<>();
        List<RocksDbKeyedStateBackend> halfBackends = new ArrayList<>();
        for (int s = 0; s < 2; s++) {
            RocksDbKeyedStateBackend half = open(KeyGroups.rangeForSubtask(s, MAX_PARALLELISM, 2));
            half.restoreIncremental(List.of(handle), files);
            IncrementalStateHandle first = checkpoint(half, 2, files);
            assertThat(first.sharedFiles()).as("the first checkpoint after a restore materialises")
                    .noneMatch(f -> RocksDbChangelog.isSegment(f.localName()));
            half.notifyCheckpointComplete(2);
            halfBackends.add(half);
        }
        for (int i = 0; i < 500; i++) {
            long key = random.nextInt((int) keys);
            int subtask = KeyGroups.rangeForSubtask(0, MAX_PARALLELISM, 2)
                    .contains(KeyGroups.keyGroupFor(key, MAX_PARALLELISM)) ? 0 : 1;
            randomWrite(halfBackends.get(subtask), model, key, random);
        }
        for (RocksDbKeyedStateBackend half : halfBackends) {
            IncrementalStateHandle h = checkpoint(half, 3, files);
            assertThat(h.sharedFiles()).as("a changelog checkpoint").anyMatch(f -> RocksDbChangelog.isSegment(f.localName()));
            halves.add(h);
        }
        RocksDbKeyedStateBackend merged = open(ALL);
        merged.restoreIncremental(halves, files);
        check(merged, model, keys, "seed " + seed + ", merged");
    }

    /**
     * The changelog segment of an aborted checkpoint is not referred to by the next one (the registry deletes what no
     * completed checkpoint refers to): the next checkpoint uploads it again, and restores without the aborted
     * checkpoint's files.
     */
    @Test
    void anAbortedCheckpointsSegmentIsUploadedAgainAndNotReferredTo() throws IOException {
        RocksDbKeyedStateBackend b = open(ALL);
        LocalFiles files = new LocalFiles();
        Model model = new Model();
        Random random = new Random(7);
        for (int i = 0; i < 300; i++) {
            randomWrite(b, model, i, random);
        }
        checkpoint(b, 1, files);
        b.notifyCheckpointComplete(1);
        for (int i = 0; i < 300; i++) {
            randomWrite(b, model, i, random);
        }
        IncrementalStateHandle aborted = checkpoint(b, 2, files);
        for (int i = 0; i < 300; i++) {
            randomWrite(b, model, i, random);
        }
        int before = files.sharedUploads.size();
        IncrementalStateHandle third = checkpoint(b, 3, files);
        assertThat(files.sharedUploads.subList(before, files.sharedUploads.size()))
                .as("checkpoint 2's segment again and checkpoint 3's").hasSize(2).allMatch(RocksDbChangelog::isSegment);
        List<IncrementalStateHandle.StateFile> abortedOnly = new ArrayList<>(aborted.sharedFiles());
        abortedOnly.removeAll(third.sharedFiles());
        assertThat(abortedOnly).as("checkpoint 2's segment, under its upload path").hasSize(1);
        for (IncrementalStateHandle.StateFile f : abortedOnly) {
            Files.delete(files.stored(f.path())); // the registry deleted the aborted checkpoint's file
        }
        RocksDbKeyedStateBackend restored = open(ALL);
        restored.restoreIncremental(List.of(third), files);
        check(restored, model, 300, "checkpoint 3");
    }

    /** The same storage, for a restore of this job's own checkpoint (a task or job-manager failover). */
    final class OwnCheckpointFiles extends LocalFiles {
        @Override
        public boolean restoringOwnCheckpoint() {
            return true;
        }
    }

    /**
     * After a restore of the job's own checkpoint of exactly its key groups (a failover), the backend goes on from the
     * restored base and segments: its next checkpoints upload their segment only (before, the first one materialised,
     * 452 MB at 4 GB in the large-state benchmark) until the 4th since the base, failovers or not, and restore
     * exactly, again and again.
     */
    @Test
    void aFailoverGoesOnFromTheRestoredBaseAndSegments() {
        long seed = seed();
        Random random = new Random(seed);
        long keys = 300;
        LocalFiles files = new OwnCheckpointFiles();
        Model model = new Model();
        RocksDbKeyedStateBackend b = open(ALL);
        long id = 0;
        for (int failover = 0; failover < 4; failover++) {
            for (int c = 0; c < 2; c++) {
                for (int i = 0; i < 200; i++) {
                    randomWrite(b, model, random.nextInt((int) keys), random);
                }
                id++;
                int before = files.sharedUploads.size();
                IncrementalStateHandle h = checkpoint(b, id, files);
                b.notifyCheckpointComplete(id);
                List<String> uploaded = files.sharedUploads.subList(before, files.sharedUploads.size());
                if ((id - 1) % 4 == 0) {
                    assertThat(h.sharedFiles()).as("seed %d, checkpoint %d: every 4th materialises, failovers or not",
                            seed, id).noneMatch(f -> RocksDbChangelog.isSegment(f.localName()));
                } else {
                    assertThat(uploaded).as("seed %d, checkpoint %d (failover %d): one segment only", seed, id,
                            failover).hasSize(1).allMatch(RocksDbChangelog::isSegment);
                }
                if (c == 1) {
                    b.close();
                    b = open(ALL);
                    b.restoreIncremental(List.of(h), files);
                    check(b, model, keys, "seed " + seed + ", failover " + failover);
                }
            }
        }
    }

    /**
     * The task-local files of a task executor over {@link OwnCheckpointFiles}: what {@code keepLocal} kept while
     * checkpoint {@link #checkpoint} uploaded, restored while that checkpoint is restored; copies, as the runtime's
     * store makes. Test thread only.
     */
    final class TaskLocalFiles extends LocalFiles {
        long checkpoint;
        final Map<String, Path> kept = new HashMap<>();
        int restoredLocal;

        @Override
        public boolean restoringOwnCheckpoint() {
            return true;
        }

        @Override
        public boolean keepLocal(String name, Path file) {
            Path copy = dir.resolve("task-local").resolve(checkpoint + "-" + kept.size());
            try {
                Files.createDirectories(copy.getParent());
                Files.copy(file, copy);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            kept.put(checkpoint + "/" + name, copy);
            return true;
        }

        @Override
        public boolean restoreLocal(String name, Path target, boolean link) {
            Path copy = kept.get(checkpoint + "/" + name);
            if (copy == null) {
                return false;
            }
            try {
                Files.copy(copy, target);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            restoredLocal++;
            return true;
        }
    }

    /**
     * Seeded: with task-local copies, a changelog checkpoint also keeps its whole instance locally; a failover onto the
     * same task executor opens it and replays no write, then goes on from the restored base and segments (one segment
     * per checkpoint). After several such failovers, the chain in storage alone (base and segments, restored on
     * another task executor) still restores exactly; and a local instance with a file missing falls back to the
     * replay, exactly too.
     */
    @Test
    void aFailoverWithTaskLocalCopiesOpensTheKeptInstanceAndReplaysNothing() throws IOException {
        long seed = seed();
        Random random = new Random(seed);
        long keys = 300;
        TaskLocalFiles files = new TaskLocalFiles();
        Model model = new Model();
        RocksDbKeyedStateBackend b = open(ALL, true);
        long id = 0;
        IncrementalStateHandle last = null;
        int localRestores = 0;
        for (int failover = 0; failover < 4; failover++) {
            for (int c = 0; c < 2; c++) {
                for (int i = 0; i < 200; i++) {
                    randomWrite(b, model, random.nextInt((int) keys), random);
                }
                id++;
                files.checkpoint = id;
                int before = files.sharedUploads.size();
                last = checkpoint(b, id, files);
                b.notifyCheckpointComplete(id);
                List<String> uploaded = files.sharedUploads.subList(before, files.sharedUploads.size());
                boolean changelog = (id - 1) % 4 != 0;
                if (changelog) {
                    assertThat(uploaded).as("seed %d, checkpoint %d (failover %d): one segment only", seed, id,
                            failover).hasSize(1).allMatch(RocksDbChangelog::isSegment);
                }
                if (c == 1) {
                    String when = "seed " + seed + ", failover " + failover + " to checkpoint " + id;
                    b.close();
                    b = open(ALL, true);
                    b.restoreIncremental(List.of(last), files);
                    check(b, model, keys, when);
                    assertThat(b.restoredLocalInstance()).as("%s: the kept instance was opened", when)
                            .isEqualTo(changelog);
                    assertThat(b.restoreReplayedWrites()).as("%s: writes replayed", when).isZero();
                    localRestores += changelog ? 1 : 0;
                }
            }
        }
        assertThat(localRestores).as("seed %d: failovers to a changelog checkpoint", seed).isEqualTo(4);

        RocksDbKeyedStateBackend elsewhere = open(ALL, true);
        files.checkpoint = -1; // another task executor: nothing kept for it
        elsewhere.restoreIncremental(List.of(last), files);
        check(elsewhere, model, keys, "seed " + seed + ": the chain in storage, on another task executor");
        assertThat(elsewhere.restoredLocalInstance()).isFalse();
        assertThat(elsewhere.restoreReplayedWrites()).as("seed %d: writes replayed from storage", seed).isPositive();

        IncrementalStateHandle damaged = null;
        for (int c = 0; c < 2; c++) { // checkpoint 9 materialises, 10 is a changelog checkpoint
            for (int i = 0; i < 200; i++) {
                randomWrite(b, model, random.nextInt((int) keys), random);
            }
            files.checkpoint = ++id;
            damaged = checkpoint(b, id, files);
            b.notifyCheckpointComplete(id);
        }
        assertThat(damaged.sharedFiles()).anyMatch(f -> RocksDbChangelog.isSegment(f.localName()));
        String prefix = id + "/" + LocalInstance.FILE_PREFIX;
        String sst = files.kept.keySet().stream().filter(k -> k.startsWith(prefix)
                && k.endsWith(".sst")).findFirst().orElseThrow();
        Files.delete(files.kept.remove(sst));
        RocksDbKeyedStateBackend fallback = open(ALL, true);
        fallback.restoreIncremental(List.of(damaged), files);
        check(fallback, model, keys, "seed " + seed + ": a local instance with a file missing");
        assertThat(fallback.restoredLocalInstance()).isFalse();
        assertThat(fallback.restoreReplayedWrites()).isPositive();
    }

    /** A state registered after the materialisation makes the next checkpoint a materialisation. */
    @Test
    void aNewStateMakesTheNextCheckpointMaterialise() {
        RocksDbKeyedStateBackend b = open(ALL);
        LocalFiles files = new LocalFiles();
        b.getValueState(VALUE);
        b.setCurrentKey(1L);
        b.getValueState(VALUE).update(5L);
        checkpoint(b, 1, files);
        b.notifyCheckpointComplete(1);
        b.setCurrentKey(2L);
        b.getListState(LIST).add(3L);
        IncrementalStateHandle h = checkpoint(b, 2, files);
        assertThat(h.sharedFiles()).noneMatch(f -> RocksDbChangelog.isSegment(f.localName()));
        b.notifyCheckpointComplete(2);
        b.setCurrentKey(3L);
        b.getListState(LIST).add(4L);
        IncrementalStateHandle next = checkpoint(b, 3, files);
        assertThat(next.sharedFiles()).anyMatch(f -> RocksDbChangelog.isSegment(f.localName()));
        RocksDbKeyedStateBackend restored = open(ALL);
        restored.restoreIncremental(List.of(next), files);
        restored.setCurrentKey(1L);
        assertThat(restored.getValueState(VALUE).value()).isEqualTo(5L);
        restored.setCurrentKey(3L);
        assertThat(restored.getListState(LIST).get()).containsExactly(4L);
    }

    /** A segment cut off (a partial upload) fails the restore with a message that names it; nothing is guessed. */
    @Test
    void aCutOffSegmentFailsTheRestoreClearly() throws IOException {
        RocksDbKeyedStateBackend b = open(ALL);
        LocalFiles files = new LocalFiles();
        b.setCurrentKey(1L);
        b.getValueState(VALUE).update(1L);
        checkpoint(b, 1, files);
        b.notifyCheckpointComplete(1);
        for (long k = 0; k < 100; k++) {
            b.setCurrentKey(k);
            b.getValueState(VALUE).update(k);
        }
        IncrementalStateHandle h = checkpoint(b, 2, files);
        IncrementalStateHandle.StateFile segment = h.sharedFiles().stream()
                .filter(f -> RocksDbChangelog.isSegment(f.localName())).findFirst().orElseThrow();
        Path stored = files.stored(segment.path());
        byte[] bytes = Files.readAllBytes(stored);
        Files.write(stored, java.util.Arrays.copyOf(bytes, bytes.length - 5));
        RocksDbKeyedStateBackend restored = open(ALL);
        assertThatThrownBy(() -> restored.restoreIncremental(List.of(h), files))
                .hasMessageContaining("The changelog segment " + segment.localName())
                .hasMessageContaining("is corrupt: it is cut off before its end");
    }
}
