package io.sluice.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A property test: the key group of every generated key value, of every type Sluice accepts as a key
 * (enums, records, tuples, lists and maps of them, nested), is the same in this JVM and in another
 * JVM started for it. Prints its seed; {@code -Dsluice.test.seed=N} repeats a run.
 */
class KeyGroupsAcrossJvmsTest {
    private static final int PER_KIND = 300;

    @Test
    void everyKeyFallsInTheSameKeyGroupInAnotherJvm() throws Exception {
        long seed = Long.getLong("sluice.test.seed", System.nanoTime());
        System.out.println("KeyGroupsAcrossJvmsTest seed: " + seed + " (repeat with -Dsluice.test.seed=" + seed + ")");
        for (int max : new int[] {128, 100}) {
            List<Object> keys = GeneratedKeys.generate(seed, PER_KIND);
            List<Integer> here = new ArrayList<>();
            for (Object key : keys) {
                here.add(KeyGroups.keyGroupFor(key, max));
            }
            List<Integer> there = inAnotherJvm(seed, max);
            assertThat(there).as("key groups in the other JVM").hasSameSizeAs(here);
            for (int i = 0; i < keys.size(); i++) {
                assertThat(there.get(i)).as("seed %d, max parallelism %d, %s key %s", seed, max,
                        GeneratedKeys.KINDS.get(i / PER_KIND), keys.get(i)).isEqualTo(here.get(i));
            }
        }
    }

    private static List<Integer> inAnotherJvm(long seed, int max) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xshare:off", "-cp", System.getProperty("java.class.path"),
                GeneratedKeys.class.getName(), Long.toString(seed), Integer.toString(PER_KIND), Integer.toString(max))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("the other JVM's exit code; its output:\n" + out).isZero();
        return out.lines().map(Integer::parseInt).toList();
    }
}
