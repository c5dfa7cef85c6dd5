package io.sluice.api.execution;

import io.sluice.graph.JobGraph;

/**
 * Runs the job graph that {@link io.sluice.api.StreamExecutionEnvironment#execute(String)} built.
 * Which executor runs it depends on where the program runs: inside a cluster's jar runner an
 * {@link ExecutionContext} supplies one that hands the graph to the job manager; a program started
 * on its own ({@code java -cp ... Main}) finds a {@link JobExecutorFactory} through
 * {@link java.util.ServiceLoader} (sluice-runtime provides one that runs the job on an embedded
 * local cluster).
 *
 * <p>Threading: called on the thread that called {@code execute}; may block until the job ends.
 */
@FunctionalInterface
public interface JobExecutor {

    /**
     * Runs {@code jobGraph}. Returns when the executor is done with it (for a local cluster: when the
     * job ended; for a cluster submission: when the job was accepted). Throws
     * {@link JobExecutionException} when the job was rejected or did not finish.
     */
    JobExecutionResult execute(JobGraph jobGraph) throws Exception;
}
