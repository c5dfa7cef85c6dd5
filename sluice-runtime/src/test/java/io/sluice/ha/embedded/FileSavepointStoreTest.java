package io.sluice.ha.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.checkpoint.Savepoint;
import io.sluice.graph.JobId;
import io.sluice.ha.SavepointEntry;
import io.sluice.ha.SavepointStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded HA services' savepoint entries: one file each, the newest kept, unreadable ones reported. */
class FileSavepointStoreTest {
    @TempDir
    Path dir;

    @Test
    void keepsTheNewestEntriesPerJobAndRereadsThemExactly() throws Exception {
        FileSavepointStore store = new FileSavepointStore(dir);
        JobId a = JobId.generate();
        List<Savepoint> written = new ArrayList<>();
        for (long cp = 1; cp <= 5; cp++) {
            Savepoint s = new Savepoint(a, cp, "file:///tmp/save%20points/savepoint-" + cp + "\nnext=line", 10 * cp,
                    10 * cp + 1, cp << 40);
            store.addSavepoint(s, 3);
            written.add(s);
        }
        store.addSavepoint(written.get(4), 3); // idempotent
        assertThat(dir.resolve(a.value())).isDirectoryContaining(p -> p.getFileName().toString()
                .equals(SavepointEntry.nameOf(3)));
        try (var files = Files.list(dir.resolve(a.value()))) {
            assertThat(files.count()).isEqualTo(3);
        }
        SavepointStore.Stored stored = new FileSavepointStore(dir).savepoints();
        assertThat(stored.byJob()).containsOnlyKeys(a);
        assertThat(stored.byJob().get(a)).containsExactlyElementsOf(written.subList(2, 5));
        assertThat(stored.unreadable()).isEmpty();
    }

    @Test
    void anUnreadableEntryIsReportedAndTheOthersAreRead() throws Exception {
        FileSavepointStore store = new FileSavepointStore(dir);
        JobId a = JobId.generate();
        JobId b = JobId.generate();
        Savepoint good = new Savepoint(a, 4, "file:///sp/savepoint-4", 1, 2, 3);
        store.addSavepoint(good, 100);
        Savepoint other = new Savepoint(b, 9, "file:///sp/savepoint-9", 1, 2, 3);
        store.addSavepoint(other, 100);
        Files.write(dir.resolve(a.value()).resolve(SavepointEntry.nameOf(5)), new byte[] {0, 1, 2});
        // An entry copied to another job's directory: it names another job.
        Files.copy(dir.resolve(b.value()).resolve(SavepointEntry.nameOf(9)),
                dir.resolve(a.value()).resolve(SavepointEntry.nameOf(9)));
        Files.writeString(dir.resolve(a.value()).resolve(SavepointEntry.nameOf(6)), "format=2\n");
        Files.createDirectories(dir.resolve("not-a-job"));

        SavepointStore.Stored stored = store.savepoints();
        assertThat(stored.byJob().get(a)).containsExactly(good);
        assertThat(stored.byJob().get(b)).containsExactly(other);
        assertThat(stored.unreadable()).hasSize(4);
        assertThat(stored.unreadable()).anySatisfy(m -> assertThat(m).contains(SavepointEntry.nameOf(9))
                .contains("of job " + b));
        assertThat(stored.unreadable()).anySatisfy(m -> assertThat(m).contains("format 2, this version reads 1"));
        assertThat(stored.unreadable()).anySatisfy(m -> assertThat(m).contains("not-a-job"));
        assertThat(store.savepoints(b).byJob().get(b)).containsExactly(other);
    }
}
