package io.sluice.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.job.JobStatus;
import io.sluice.metrics.job.JobStatusTimes;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class JobStatusTimesTest {
    private final AtomicLong now = new AtomicLong();

    @Test
    void addsUpClosedPeriodsAndTheCurrentOne() {
        JobStatusTimes times = new JobStatusTimes(JobStatus.INITIALIZING, now::get);
        now.set(2_000_000_000L);
        assertThat(times.enter(JobStatus.RUNNING)).isTrue();
        now.set(5_000_000_000L);
        assertThat(times.enter(JobStatus.RESTARTING)).isTrue();
        now.set(5_500_000_000L);
        times.enter(JobStatus.RUNNING);
        now.set(6_000_000_000L);

        assertThat(times.seconds(JobStatus.INITIALIZING)).isEqualTo(2.0);
        assertThat(times.seconds(JobStatus.RESTARTING)).isEqualTo(0.5);
        assertThat(times.seconds(JobStatus.RUNNING)).isEqualTo(3.5); // 3 s closed + 0.5 s current
        assertThat(times.seconds(JobStatus.FAILED)).isZero();
        assertThat(times.current()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void enteringTheCurrentStatusIsNoChange() {
        JobStatusTimes times = new JobStatusTimes(JobStatus.RUNNING, now::get);
        now.set(1_000_000_000L);
        assertThat(times.enter(JobStatus.RUNNING)).isFalse();
        assertThat(times.seconds(JobStatus.RUNNING)).isEqualTo(1.0);
    }
}
