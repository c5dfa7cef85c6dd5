package io.sluice.api.execution;

import io.sluice.config.Configuration;

/**
 * Service-provider interface (registered in {@code META-INF/services/io.sluice.api.execution.JobExecutorFactory})
 * of the executor used when a program calls {@link io.sluice.api.StreamExecutionEnvironment#execute(String)}
 * outside any cluster. sluice-runtime registers one that starts an embedded local cluster per job.
 */
public interface JobExecutorFactory {

    /** An executor for one program run, configured by {@code configuration} (e.g. {@code cluster.*}). */
    JobExecutor create(Configuration configuration);
}
