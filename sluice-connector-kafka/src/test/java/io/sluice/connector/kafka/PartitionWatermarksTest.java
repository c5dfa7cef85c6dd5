package io.sluice.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The watermark and idleness of one Kafka source subtask over its partitions, on a hand-driven clock. */
class PartitionWatermarksTest {
    private static final TopicPartition P0 = new TopicPartition("t", 0);

    @Test
    void aSubtaskWithNoPartitionIsIdleEvenWithoutAnIdleTimeoutAndActiveOnceItGetsOne() {
        PartitionWatermarks none = new PartitionWatermarks(100, -1);

        assertThat(none.idleChange(0)).as("more subtasks than partitions: nothing to hold windows back for").isTrue();
        assertThat(none.idleChange(10)).as("no change").isNull();
        none.track(P0, 20); // a partition discovered later
        assertThat(none.idleChange(20)).isFalse();
        none.onRecord(P0, 5_000, 30);
        assertThat(none.advance(30)).isEqualTo(5_000 - 100 - 1);
    }

    @Test
    void withoutAnIdleTimeoutASilentPartitionHoldsTheSubtaskActive() {
        PartitionWatermarks one = new PartitionWatermarks(100, -1);
        one.track(P0, 0);

        assertThat(one.idleChange(3_600_000)).isNull();
        assertThat(one.advance(3_600_000)).as("no record yet: no watermark").isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void withAnIdleTimeoutASilentPartitionMakesTheSubtaskIdleAfterIt() {
        PartitionWatermarks one = new PartitionWatermarks(100, 1_000);
        one.track(P0, 0);

        assertThat(one.idleChange(999)).isNull();
        assertThat(one.idleChange(1_000)).isTrue();
        one.onRecord(P0, 7_000, 1_500);
        assertThat(one.idleChange(1_500)).isFalse();
    }
}
