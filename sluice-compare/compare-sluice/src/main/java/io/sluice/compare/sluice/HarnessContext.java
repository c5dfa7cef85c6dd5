package io.sluice.compare.sluice;

import io.sluice.compare.Plan;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * What the scenarios of one harness run share: the plan, progress output, a work directory
 * (deleted at the end) and the ZooKeeper of the recovery scenarios, started on first use.
 *
 * <p>Threading: harness thread only.
 */
final class HarnessContext implements AutoCloseable {
    private final Plan plan;
    private final Progress progress;
    private final Path workDir;
    private final AtomicInteger sequence = new AtomicInteger();
    private ZooKeeperSetup zooKeeper;

    HarnessContext(Plan plan, Progress progress) throws IOException {
        this.plan = plan;
        this.progress = progress;
        this.workDir = Files.createTempDirectory("sluice-compare");
    }

    Plan plan() {
        return plan;
    }

    Progress progress() {
        return progress;
    }

    /** The in-process ZooKeeper behind its latency proxy (delay 0); started on the first call. */
    ZooKeeperSetup zooKeeper() throws Exception {
        if (zooKeeper == null) {
            zooKeeper = ZooKeeperSetup.start();
        }
        return zooKeeper;
    }

    /** A cluster id used nowhere else in this run, so that no scenario sees another's HA data. */
    String newClusterId(String name) {
        return name + "-" + sequence.incrementAndGet();
    }

    /** A new, empty directory under the work directory. */
    Path newDir(String name) throws IOException {
        return Files.createDirectories(workDir.resolve(name + "-" + sequence.incrementAndGet()));
    }

    @Override
    public void close() {
        if (zooKeeper != null) {
            try {
                zooKeeper.close();
            } catch (IOException e) {
                progress.problem("Could not stop the in-process ZooKeeper cleanly: %s", e);
            }
        }
        try (Stream<Path> paths = Files.walk(workDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            progress.problem("Could not delete the work directory %s: %s; delete it by hand", workDir, e);
        }
    }
}
