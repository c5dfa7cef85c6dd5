package io.sluice.cluster;

import io.sluice.api.execution.JobExecutionException;
import io.sluice.api.execution.JobExecutionResult;
import io.sluice.api.execution.JobExecutor;
import io.sluice.api.execution.JobExecutorFactory;
import io.sluice.config.ClusterOptions;
import io.sluice.config.Configuration;
import io.sluice.graph.JobGraph;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.util.concurrent.ExecutionException;

/**
 * What {@code env.execute(name)} uses in a program started on its own ({@code java -cp ... Main}):
 * each call starts a {@link LocalCluster} (in-memory HA; one task executor with as many slots as
 * the job needs, unless {@code cluster.*} says otherwise), runs the job until it ends, and stops the
 * cluster. Registered in {@code META-INF/services/io.sluice.api.execution.JobExecutorFactory}.
 */
public final class LocalClusterJobExecutorFactory implements JobExecutorFactory {

    @Override
    public JobExecutor create(Configuration configuration) {
        Configuration settings = configuration.copy();
        return graph -> run(graph, settings);
    }

    private static JobExecutionResult run(JobGraph graph, Configuration settings) throws Exception {
        LocalCluster.Builder builder = LocalCluster.builder().configuration(settings);
        if (!settings.contains(ClusterOptions.TASK_EXECUTORS) && !settings.contains(ClusterOptions.SLOTS_PER_TASK_EXECUTOR)) {
            builder.taskExecutors(1).slotsPerTaskExecutor(Math.max(1, graph.requiredSlots()));
        }
        try (LocalCluster cluster = builder.build()) {
            cluster.submit(graph);
            JobResult result;
            try {
                result = cluster.dispatcher().requestJobResult(graph.jobId()).get();
            } catch (ExecutionException e) {
                throw new JobExecutionException(graph.jobId(), "Job '" + graph.name() + "' (" + graph.jobId()
                        + ") did not end normally: " + e.getCause(), e.getCause());
            }
            if (result.status() != JobStatus.FINISHED) {
                throw new JobExecutionException(graph.jobId(), "Job '" + graph.name() + "' (" + graph.jobId() + ") ended "
                        + result.status() + (result.failureMessage() != null ? ": " + result.failureMessage() : ""));
            }
            return new JobExecutionResult(graph.jobId(), graph.name(), result.status().name());
        }
    }
}
