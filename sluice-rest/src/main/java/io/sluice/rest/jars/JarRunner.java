package io.sluice.rest.jars;

import io.sluice.graph.JobId;
import io.sluice.rest.model.JarInfo;
import io.sluice.rest.RestException;
import io.sluice.rest.RunRequest;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * Builds the job of a stored jar and submits it: loads {@code jarFile} in its own class loader, runs
 * the entry class's {@code main} with the request's arguments, captures the job graph it executes
 * and submits it. The jar loader of {@code io.sluice.jar} implements this; {@link #unsupported()}
 * answers 501 where none is wired in. Called from any thread; must not block it (load and run the
 * program on an executor of its own).
 */
@FunctionalInterface
public interface JarRunner {

    /**
     * @param jarFile the stored jar (a generated name in the jar directory)
     * @param request as sent, except that {@link RunRequest#entryClass()} is resolved: the requested class
     *                or the jar's {@code Main-Class}, checked to be in the jar
     * @return the submitted job's id; fails with a {@link RestException} (its status) or another exception
     *         that the server maps (see {@link io.sluice.rest.RestBackend})
     */
    CompletableFuture<JobId> run(Path jarFile, JarInfo jar, RunRequest request);

    /** Refuses every run with a 501 that says running jars is not available in this server. */
    static JarRunner unsupported() {
        return (file, jar, request) -> CompletableFuture.failedFuture(new RestException(501,
                "This server stores jars but cannot run them: no jar runner is configured. Start the cluster with"
                        + " 'sluice cluster', which can."));
    }
}
