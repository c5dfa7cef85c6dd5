package io.sluice.cli.cluster;

import io.sluice.concurrent.Futures;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.protocol.JobSubmissionException;
import io.sluice.graph.JobId;
import io.sluice.jar.JarException;
import io.sluice.jar.JarJobSubmitter;
import io.sluice.jar.ProgramRequest;
import io.sluice.rest.model.JarInfo;
import io.sluice.rest.RestException;
import io.sluice.rest.RunRequest;
import io.sluice.rest.jars.JarRunner;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * Runs the stored jars of the REST API ({@code POST /v1/jars/{id}/run}) with the runtime's
 * {@link JarJobSubmitter}: the program's {@code main} builds the job in the jar's own class loader,
 * the jar is kept in the HA services, the job is submitted. A program the cluster cannot run (no
 * entry class, {@code main} threw, a rejected submission, a bad configuration value, a job graph too large
 * to forward to the leader over RPC) is a 400 whose
 * message is the reason. Any thread; never blocks.
 */
public final class ClusterJarRunner implements JarRunner {
    private final JarJobSubmitter submitter;

    public ClusterJarRunner(JarJobSubmitter submitter) {
        this.submitter = submitter;
    }

    @Override
    public CompletableFuture<JobId> run(Path jarFile, JarInfo jar, RunRequest request) {
        ProgramRequest program = new ProgramRequest(request.entryClass(), request.parallelism(), request.args(),
                request.config());
        return submitter.run(jarFile, jar.name(), program).exceptionallyCompose(error -> {
            Throwable cause = Futures.unwrap(error);
            // RpcMessageTooLargeException: a standby forwarded a job graph above a job manager's
            // rpc.max-message-size; its message names the size, the limit and the key to raise.
            if (cause instanceof JarException || cause instanceof JobSubmissionException
                    || cause instanceof IllegalConfigurationException
                    || cause instanceof io.sluice.rpc.remote.RpcMessageTooLargeException) {
                return CompletableFuture.failedFuture(RestException.badRequest(cause.getMessage()));
            }
            return CompletableFuture.failedFuture(cause);
        });
    }
}
