package io.sluice.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class KeyGroupsTest {
    private static final int[] MAX_PARALLELISMS = {1, 2, 3, 7, 10, 64, 100, 127, 128, 1000, 32768};
    private static final int[] PARALLELISMS = {1, 2, 3, 4, 5, 7, 10, 13, 64, 100, 127, 128, 129};

    @Test
    void everyKeyGroupMapsToASubtaskWhoseRangeContainsIt() {
        for (int max : MAX_PARALLELISMS) {
            for (int p : PARALLELISMS) {
                if (p > max) {
                    continue;
                }
                for (int g = 0; g < max; g++) {
                    int subtask = KeyGroups.subtaskForKeyGroup(g, max, p);
                    assertThat(subtask).as("subtask of group %d, max %d, parallelism %d", g, max, p)
                            .isBetween(0, p - 1);
                    assertThat(KeyGroups.rangeForSubtask(subtask, max, p).contains(g))
                            .as("range of subtask %d contains group %d, max %d, parallelism %d", subtask, g, max, p)
                            .isTrue();
                }
            }
        }
    }

    @Test
    void subtaskRangesPartitionAllKeyGroupsInOrder() {
        for (int max : MAX_PARALLELISMS) {
            for (int p : PARALLELISMS) {
                if (p > max) {
                    continue;
                }
                int next = 0;
                for (int i = 0; i < p; i++) {
                    KeyGroupRange r = KeyGroups.rangeForSubtask(i, max, p);
                    assertThat(r.start()).as("start of subtask %d, max %d, parallelism %d", i, max, p).isEqualTo(next);
                    assertThat(r.size()).as("size of subtask %d, max %d, parallelism %d", i, max, p).isPositive();
                    next = r.end() + 1;
                }
                assertThat(next).as("groups covered, max %d, parallelism %d", max, p).isEqualTo(max);
            }
        }
    }

    @Test
    void keyGroupsAreInRangeAndSpreadConsecutiveKeys() {
        long seed = Long.getLong("sluice.test.seed", System.nanoTime());
        System.out.println("KeyGroupsTest seed " + seed + " (rerun with -Dsluice.test.seed=" + seed + ")");
        Random random = new Random(seed);
        int max = 128;
        int[] counts = new int[max];
        for (int i = 0; i < 100_000; i++) {
            int g = KeyGroups.keyGroupFor(random.nextLong(), max);
            assertThat(g).as("seed %d", seed).isBetween(0, max - 1);
        }
        for (long key = 0; key < 12_800; key++) {
            counts[KeyGroups.keyGroupFor(key, max)]++;
        }
        // 100 expected per group; consecutive keys must not pile up in a few groups
        for (int g = 0; g < max; g++) {
            assertThat(counts[g]).as("keys 0..12799 in group %d", g).isBetween(50, 150);
        }
    }

    @Test
    void keyGroupIsTheFloorModOfTheMixedHashForEveryMaxParallelism() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        int[] hashes = new int[10_000];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = i < 8 ? new int[] {0, 1, -1, 2, Integer.MIN_VALUE, Integer.MAX_VALUE, 127, -128}[i]
                    : random.nextInt();
        }
        for (int maxParallelism : new int[] {1, 2, 3, 7, 64, 100, 128, 129, 1000, 1 << 15, Integer.MAX_VALUE}) {
            for (int hash : hashes) {
                int expected = Math.floorMod(KeyGroups.mix(hash), maxParallelism);
                org.assertj.core.api.Assertions.assertThat(KeyGroups.keyGroupForHash(hash, maxParallelism))
                        .as("hash %d, max parallelism %d", hash, maxParallelism).isEqualTo(expected);
            }
        }
        org.assertj.core.api.Assertions.assertThat(KeyGroups.keyGroupFor(12345L, 128))
                .isEqualTo(Math.floorMod(KeyGroups.mix(Long.valueOf(12345L).hashCode()), 128));
    }

    @Test
    void theIntersectionOfTwoRangesHoldsTheGroupsOfBoth() {
        assertThat(KeyGroupRange.of(0, 63).intersection(KeyGroupRange.of(43, 85))).isEqualTo(KeyGroupRange.of(43, 63));
        assertThat(KeyGroupRange.of(43, 85).intersection(KeyGroupRange.of(0, 127))).isEqualTo(KeyGroupRange.of(43, 85));
        assertThat(KeyGroupRange.of(0, 31).intersection(KeyGroupRange.of(32, 63)).size()).isZero();
    }
}
