package io.sluice.bench.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.StateBackendType;
import io.sluice.job.JobStatus;
import org.junit.jupiter.api.Test;

/**
 * Runs the three recovery benchmarks in smoke mode (tiny counts). Asserts only counts and
 * completion, never timing: the build machine is shared and timing belongs to the real runs
 * (docs/benchmarks-recovery.md).
 */
class RecoveryBenchmarksSmokeTest {

    @Test
    void allThreeRecoveryBenchmarksCompleteInSmokeMode() throws Exception {
        StatusLatencyBenchmark.Settings ss = StatusLatencyBenchmark.Settings.smoke();
        StatusLatencyBenchmark.Result status = StatusLatencyBenchmark.run(ss);
        StatusLatencyBenchmark.print(status, true);
        assertThat(status.hung().queries()).isEqualTo(ss.hungQueries());
        assertThat(status.hung().initializing()).as("every answer while storage hangs is INITIALIZING")
                .isEqualTo(ss.hungQueries());
        assertThat(status.hung().stats().count()).isEqualTo(ss.hungQueries());
        assertThat(status.start().storedJobs()).isEqualTo(ss.storedJobs());
        assertThat(status.start().stats().count()).isEqualTo(ss.startQueries());
        assertThat(status.start().statuses().values().stream().mapToInt(Integer::intValue).sum())
                .isEqualTo(ss.startQueries());

        checkRecoveryTime(StateBackendType.HEAP);

        TaskFailoverBenchmark.Settings ts = TaskFailoverBenchmark.Settings.smoke();
        TaskFailoverBenchmark.Result failover = TaskFailoverBenchmark.run(ts);
        TaskFailoverBenchmark.print(failover, true);
        assertThat(failover.thrown()).isEqualTo(ts.failures());
        assertThat(failover.restarts()).isEqualTo(ts.failures());
        assertThat(failover.failovers()).hasSize(ts.failures());
        // Whether a checkpoint completed before the first failure depends on the machine's load; by the
        // last failure the job has run long enough (300 ms at 20 ms intervals) to have restored state.
        assertThat(failover.failovers().get(failover.failovers().size() - 1).restoredStateSeen()).isTrue();
        assertThat(failover.metadataReads()).as("metadata reads during task failover").isZero();
        assertThat(failover.finalStatus()).isEqualTo(JobStatus.CANCELED);
    }

    @Test
    void theRecoveryTimeBenchmarkCompletesOnRocksDbWithIncrementalCheckpoints() throws Exception {
        RecoveryTimeBenchmark.Result recovery = checkRecoveryTime(StateBackendType.ROCKSDB);
        assertThat(recovery.runs(recovery.settings().most())).as("the registry names shared files")
                .allSatisfy(r -> assertThat(r.registryFiles()).isPositive());
    }

    private static RecoveryTimeBenchmark.Result checkRecoveryTime(StateBackendType backend) throws Exception {
        RecoveryTimeBenchmark.Settings rs = RecoveryTimeBenchmark.Settings.smoke(backend);
        RecoveryTimeBenchmark.Result recovery = RecoveryTimeBenchmark.run(rs);
        RecoveryTimeBenchmark.print(recovery, true);
        for (int n : rs.retained()) {
            assertThat(recovery.runs(n)).hasSize(rs.runs());
            // The store writes a new checkpoint's pointer before it removes the oldest one (so a crash never loses
            // the latest); a job manager stopped between the two leaves one pointer more than retained, which the
            // next completed checkpoint trims. Asserting exactly N failed about 1 run in 5.
            assertThat(recovery.runs(n)).allSatisfy(r -> assertThat(r.pointersFound()).isBetween(n, n + 1));
            assertThat(recovery.runs(n)).as("only the latest checkpoint's metadata is loaded")
                    .allSatisfy(r -> assertThat(r.metadataLoaded()).isEqualTo(1));
        }
        return recovery;
    }
}
