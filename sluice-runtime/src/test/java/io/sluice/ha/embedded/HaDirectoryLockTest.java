package io.sluice.ha.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One process per embedded HA directory: a second JVM on a directory in use fails naming this
 * process's pid, and gets the directory once it is released; HA services of one JVM share it.
 */
class HaDirectoryLockTest {
    private static final long MY_PID = ProcessHandle.current().pid();

    @TempDir
    Path dir;

    private Process probe(String mode, Path haDir) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                HaDirectoryLockProbe.class.getName(), mode, haDir.toString());
        pb.redirectErrorStream(true);
        return pb.start();
    }

    /** The probe's first line of output (it logs nothing else on stdout before it). */
    private static String firstLine(Process p) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = r.readLine()) != null) {
            if (line.startsWith("LOCKED") || line.startsWith("ACQUIRED")) {
                return line;
            }
        }
        return "(no answer; exit " + (p.isAlive() ? "still running" : p.exitValue()) + ")";
    }

    @Test
    void aSecondProcessIsRefusedNamingTheHolderUntilTheDirectoryIsReleased() throws Exception {
        Path haDir = dir.resolve("ha");
        EmbeddedHaServices first = new EmbeddedHaServices(haDir);
        EmbeddedHaServices second = new EmbeddedHaServices(haDir); // same JVM: shares the lock
        try {
            // (read through the lock's channel: closing any other descriptor of the file would drop the lock)
            String record = first.leaderElectionService().processLock().record();
            assertThat(record).contains("pid=" + MY_PID).contains("host=").contains("started=");

            Process other = probe("try", haDir);
            String answer = firstLine(other);
            assertThat(other.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(other.exitValue()).as(answer).isEqualTo(HaDirectoryLockProbe.LOCKED);
            assertThat(answer).contains("is in use by another Sluice process (pid " + MY_PID + " on host ")
                    .contains(haDir.toRealPath().toString()).contains("high-availability.dir")
                    .contains("high-availability.type: zookeeper");

            first.close(); // one user left in this JVM: still held
            Process stillRefused = probe("try", haDir);
            assertThat(firstLine(stillRefused)).startsWith("LOCKED");
            assertThat(stillRefused.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            first.close();
            second.close();
        }
        // Released on close: another process gets it.
        Process afterRelease = probe("try", haDir);
        assertThat(firstLine(afterRelease)).isEqualTo("ACQUIRED");
        assertThat(afterRelease.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(afterRelease.exitValue()).isZero();
    }

    @Test
    void thisProcessIsRefusedWhileAnotherHoldsTheDirectoryAndSucceedsWhenItEnds() throws Exception {
        Path haDir = dir.resolve("ha");
        Process holder = probe("hold", haDir);
        try {
            assertThat(firstLine(holder)).isEqualTo("ACQUIRED");
            assertThatThrownBy(() -> new EmbeddedHaServices(haDir))
                    .isInstanceOf(HaDirectoryLockedException.class)
                    .hasMessageContaining("(pid " + holder.pid() + " on host ")
                    .satisfies(e -> assertThat(((HaDirectoryLockedException) e).holder())
                            .startsWith("pid " + holder.pid()));
            // A failed attempt leaves nothing registered: the same JVM can try again later.
            assertThatThrownBy(() -> new EmbeddedHaServices(haDir)).isInstanceOf(HaDirectoryLockedException.class);
        } finally {
            holder.getOutputStream().close(); // the holder closes its services and exits
            assertThat(holder.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        try (EmbeddedHaServices mine = new EmbeddedHaServices(haDir)) {
            assertThat(mine.leaderElectionService().processLock().record()).contains("pid=" + MY_PID);
        }
    }

    @Test
    void aKilledHolderDoesNotLeaveTheDirectoryLocked() throws Exception {
        Path haDir = dir.resolve("ha");
        Process holder = probe("hold", haDir);
        assertThat(firstLine(holder)).isEqualTo("ACQUIRED");
        holder.destroyForcibly();
        assertThat(holder.waitFor(60, TimeUnit.SECONDS)).isTrue();
        try (EmbeddedHaServices mine = new EmbeddedHaServices(haDir)) {
            assertThat(mine.haDirectory()).isEqualTo(haDir.toRealPath());
        }
    }
}
