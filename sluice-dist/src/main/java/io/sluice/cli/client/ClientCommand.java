package io.sluice.cli.client;

import io.sluice.graph.JobId;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * A command that talks to a cluster's REST API: reports a {@link ClientException} as one line on
 * stderr and returns its exit code.
 */
abstract class ClientCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClientOptions options;

    @Override
    public final Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            return run(options.client(spec), out);
        } catch (ClientException e) {
            err.println(spec.qualifiedName() + ": " + e.getMessage());
            return e.exitCode();
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** Does the command's work; returns its exit code. */
    abstract int run(RestClient client, PrintWriter out) throws ClientException, InterruptedException;

    /** {@code value} as a job id, or a usage error naming the form of one. */
    JobId jobId(String value) {
        try {
            return JobId.of(value);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "'" + value + "' is not a job id; a job id is 32 hexadecimal"
                    + " digits, as 'sluice list' shows");
        }
    }

    void printJson(PrintWriter out, Object json) {
        try {
            out.println(RestClient.json().writeValueAsString(json));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
