package io.sluice.jar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.graph.JobId;
import io.sluice.util.DirectoryClaims;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar copies of {@link UserCodeClassLoaders}: in a directory named after the process, deleted with
 * everything in it when the process's components close (also the copies of jobs still loaded then), and
 * deleted by the next process when the one that made them was killed.
 */
class UserCodeClassLoadersTest {
    @TempDir
    Path dir;

    private final ExecutorService io = Executors.newSingleThreadExecutor();
    private final InMemoryJobJarStore store = new InMemoryJobJarStore();

    @AfterEach
    void stopIo() throws InterruptedException {
        io.shutdownNow();
        io.awaitTermination(10, TimeUnit.SECONDS);
    }

    private Path emptyJar() throws Exception {
        Path jar = dir.resolve("job.jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, new Manifest())) {
            j.flush();
        }
        return jar;
    }

    @Test
    void theTemporaryCacheDirectoryIsNamedAfterThisProcess() throws Exception {
        UserCodeClassLoaders loaders = UserCodeClassLoaders.inTemporaryDirectory(() -> store, io);
        assertThat(loaders.cacheDirectory().getFileName().toString()).as("this process's claim on java.io.tmpdir")
                .startsWith("sluice-job-jars-" + DirectoryClaims.token(Path.of(System.getProperty("java.io.tmpdir")))
                        + "-");
        assertThat(loaders.cacheDirectory()).as("created with the first jar copy only").doesNotExist();
    }

    @Test
    void closingDeletesTheCacheDirectoryWithTheCopiesOfJobsStillLoaded() throws Exception {
        JobId job = JobId.generate();
        store.putJobJar(job, emptyJar());
        Path cache = dir.resolve("tmp").resolve("sluice-job-jars-" + ProcessHandle.current().pid() + "-1");
        UserCodeClassLoaders loaders = new UserCodeClassLoaders(() -> store, io, getClass().getClassLoader(), cache);
        ClassLoaderLease lease = loaders.acquire(job);
        assertThat(cache).as("the job's jar copy").isNotEmptyDirectory();

        loaders.close();

        assertThat(cache).as("closed with the process's components").doesNotExist();
        assertThat(loaders.isLoaded(job)).isFalse();
        assertThatThrownBy(() -> loaders.acquire(job)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        io.shutdown(); // a lease closed after the process's I/O stopped needs none of it
        lease.close();
        loaders.close();
        assertThat(cache).doesNotExist();
    }

    @Test
    void theFirstJarCopyDeletesTheCacheOfAProcessThatWasKilledNotThoseOfLiveOnes() throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        String killed = "1-0b0b0b0b";
        Files.createFile(tmp.resolve(".owner-" + killed + ".lock")); // a claim nobody holds: its process ended
        Path left = Files.createDirectories(tmp.resolve("sluice-job-jars-" + killed + "-1"));
        Files.write(left.resolve("job-1.jar"), new byte[1024]);
        String own = DirectoryClaims.token(tmp);
        Path live = Files.createDirectories(tmp.resolve("sluice-job-jars-" + own + "-2"));
        JobId job = JobId.generate();
        store.putJobJar(job, emptyJar());
        UserCodeClassLoaders loaders = new UserCodeClassLoaders(() -> store, io, getClass().getClassLoader(),
                tmp.resolve("sluice-job-jars-" + own + "-3"));

        try (ClassLoaderLease lease = loaders.acquire(job)) {
            assertThat(lease.classLoader()).isNotNull();
        }

        assertThat(left).as("the killed process's jar copies").doesNotExist();
        assertThat(live).as("a live process's cache").exists();
        loaders.close();
    }
}
