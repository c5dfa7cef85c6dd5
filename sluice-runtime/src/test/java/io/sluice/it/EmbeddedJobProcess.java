package io.sluice.it;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.AtLeastOnceFileSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A Sluice process for {@link ProcessRestartITCase}: a local cluster with embedded HA on a given
 * directory. {@code submit} submits the keyed counting job under a given id and runs until killed;
 * {@code recover} only starts the cluster, waits for the stored job to end and exits 0 if it FINISHED.
 *
 * <p>Arguments: {@code submit|recover <ha dir> <checkpoint dir> <output dir> <job id> <records> <rate>}.
 */
public final class EmbeddedJobProcess {
    static final int KEYS = 8;

    private EmbeddedJobProcess() {}

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        Path ha = Path.of(args[1]);
        String checkpoints = args[2];
        String output = args[3];
        JobId jobId = JobId.of(args[4]);
        long records = Long.parseLong(args[5]);
        double rate = Double.parseDouble(args[6]);
        try (LocalCluster cluster = LocalCluster.builder().haDirectory(ha).build()) {
            if (mode.equals("submit")) {
                StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                        .enableCheckpointing(Duration.ofMillis(50)).setCheckpointDir(checkpoints)
                        .setRestartStrategy(new RestartStrategyConfig.FixedDelay(5, Duration.ofMillis(10)));
                KeyedCountingJob.build(env, SequenceSource.bounded(0, records - 1).withRate(rate), KEYS,
                        InjectedFailures.none(), new AtLeastOnceFileSink<>(output));
                cluster.submit(env.buildJobGraph("process restart", jobId));
                System.out.println("SUBMITTED " + jobId);
                Thread.currentThread().join(); // runs until the test kills this process
            }
            JobResult result = cluster.dispatcher().requestJobResult(jobId).get(2, TimeUnit.MINUTES);
            System.out.println("RESULT " + result.status());
            System.exit(result.status().name().equals("FINISHED") ? 0 : 1);
        }
    }
}
