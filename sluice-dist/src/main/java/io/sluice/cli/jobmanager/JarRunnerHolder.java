package io.sluice.cli.jobmanager;

import io.sluice.graph.JobId;
import io.sluice.rest.model.JarInfo;
import io.sluice.rest.RestException;
import io.sluice.rest.RunRequest;
import io.sluice.rest.jars.JarRunner;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link JarRunner} of a job manager's REST API, set once the job manager runs (its REST server
 * starts first, to know its URL); until then a run is answered 503. Any thread.
 */
final class JarRunnerHolder implements JarRunner {
    private volatile JarRunner delegate;

    void set(JarRunner runner) {
        this.delegate = runner;
    }

    @Override
    public CompletableFuture<JobId> run(Path jarFile, JarInfo jar, RunRequest request) {
        JarRunner d = delegate;
        if (d == null) {
            return CompletableFuture.failedFuture(new RestException(503, "This job manager is still starting; retry in a"
                    + " moment"));
        }
        return d.run(jarFile, jar, request);
    }
}
