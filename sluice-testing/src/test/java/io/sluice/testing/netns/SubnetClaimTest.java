package io.sluice.testing.netns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Subnet claims (no root needed): held ones are never handed out twice, released ones are again. */
class SubnetClaimTest {
    private static final int SUBNETS = SubnetClaim.LAST - SubnetClaim.FIRST + 1;

    @Test
    void everyClaimHeldAtOnceHasItsOwnSubnetAndTagUntilEveryOneIsTaken(@TempDir Path dir) throws Exception {
        List<SubnetClaim> held = new ArrayList<>();
        try {
            Set<Integer> subnets = new HashSet<>();
            Set<String> tags = new HashSet<>();
            for (int i = 0; i < SUBNETS; i++) {
                SubnetClaim c = SubnetClaim.claim(dir, s -> false);
                held.add(c);
                assertThat(c.subnet()).isBetween(SubnetClaim.FIRST, SubnetClaim.LAST);
                assertThat(subnets.add(c.subnet())).as("subnet %d handed out twice", c.subnet()).isTrue();
                assertThat(tags.add(c.tag(7))).isTrue();
                assertThat(c.tag(7)).hasSize(4);
            }
            assertThatThrownBy(() -> SubnetClaim.claim(dir, s -> false)).hasMessageContaining("every test subnet")
                    .hasMessageContaining(dir.toString());

            SubnetClaim released = held.remove(17);
            released.close();
            try (SubnetClaim again = SubnetClaim.claim(dir, s -> false)) {
                assertThat(again.subnet()).isEqualTo(released.subnet());
            }
        } finally {
            held.forEach(SubnetClaim::close);
        }
    }

    /**
     * Claims in this JVM try the subnets it already holds too; closing such a channel would drop this JVM's lock
     * (POSIX locks belong to the process), and another process could then claim a subnet held here.
     */
    @Test
    void anotherProcessGetsNoSubnetWhileThisJvmHoldsEveryOne(@TempDir Path dir) throws Exception {
        List<SubnetClaim> held = new ArrayList<>();
        try {
            for (int i = 0; i < SUBNETS; i++) {
                held.add(SubnetClaim.claim(dir, s -> false));
            }
            Process other = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), SubnetClaimer.class.getName(), dir.toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String answer = new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            assertThat(other.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(answer).as("the other process's claim").startsWith("none: every test subnet");
        } finally {
            held.forEach(SubnetClaim::close);
        }
    }

    @Test
    void subnetsInUseOnTheMachineAreSkipped(@TempDir Path dir) throws Exception {
        for (int i = 0; i < 20; i++) {
            try (SubnetClaim c = SubnetClaim.claim(dir, s -> s != 100)) {
                assertThat(c.subnet()).isEqualTo(100);
            }
        }
        assertThatThrownBy(() -> SubnetClaim.claim(dir, s -> true)).hasMessageContaining("every test subnet");
    }
}
