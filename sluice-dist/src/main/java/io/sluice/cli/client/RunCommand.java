package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.common.DurationConverter;
import io.sluice.cli.common.ExitCodes;
import io.sluice.graph.JobId;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice run <jar>}: uploads the jar (or reuses the cluster's copy of the same bytes, {@link JarUploads}), runs its
 * program on the cluster, and (unless detached) follows the job.
 */
@Command(name = "run",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Uploads a job jar to the cluster and runs it: the entry class's main(String[]) builds the job through"
                + " StreamExecutionEnvironment and calls execute(name). Arguments after '--' go to main. A jar whose"
                + " bytes the cluster stores already (an earlier run of it, 'sluice jars') is run from that copy"
                + " instead of being uploaded again.",
            "Attached (the default) it prints a progress line whenever the job's status changes, and exits with the"
                + " job's outcome; --detached returns as soon as the job is accepted."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            " 0:the job FINISHED (attached), or was accepted (--detached)",
            " 2:the job was rejected (e.g. its main threw), or ended FAILED or CANCELED",
            "64:invalid command line",
            "65:the cluster refused the upload (e.g. over rest.max-upload-size)",
            "66:the jar file does not exist",
            "69:the cluster cannot be reached",
            "77:the cluster refused the token"})
public final class RunCommand extends ClientCommand {
    private static final String RESTORE_FROM_KEY = io.sluice.config.CheckpointingOptions.RESTORE_FROM.key();

    @Parameters(index = "0", paramLabel = "JAR", description = "The job jar, e.g. sluice-examples/target/sluice-examples.jar.")
    Path jar;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "Arguments of the program's main (after '--').")
    List<String> args = new ArrayList<>();

    @Option(names = "--class", paramLabel = "CLASS", description = "Entry class. Default: the jar manifest's Main-Class.")
    String entryClass;

    @Option(names = "--parallelism", paramLabel = "N", description = "Default parallelism of the job's operators.")
    Integer parallelism;

    @Option(names = "--detached", description = "Return once the job is accepted; do not follow it.")
    boolean detached;

    @Option(names = "-D", paramLabel = "KEY=VALUE", mapFallbackValue = "",
            description = "Job configuration over the program's, repeatable, e.g. -D checkpoints.interval=1s"
                    + " or -D checkpoints.restore-from=<checkpoint path>.")
    Map<String, String> config = new LinkedHashMap<>();

    @Option(names = "--restore-from", paramLabel = "CHECKPOINT",
            description = "Start the job from a savepoint (its directory, as 'sluice savepoint' printed it, wherever"
                    + " it was moved) or a retained checkpoint: a checkpoint directory"
                    + " <checkpoints.dir>/<jobId>/chk-<n> (or its _metadata file), or latest:<jobId> for the newest"
                    + " readable checkpoint of an earlier job (e.g. one that was canceled or failed). The same as"
                    + " -D checkpoints.restore-from=CHECKPOINT. A checkpoint that cannot be used fails the job"
                    + " (exit code 2) with the reason.")
    String restoreFrom;

    @Option(names = "--poll-interval", paramLabel = "DURATION", defaultValue = "500 ms", converter = DurationConverter.class,
            description = "How often an attached run asks for the job's status. Default: ${DEFAULT-VALUE}.")
    Duration pollInterval;

    @Override
    int run(RestClient client, PrintWriter out) throws ClientException, InterruptedException {
        if (parallelism != null && parallelism < 1) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "Invalid value for option '--parallelism': " + parallelism + "; it must be at least 1.");
        }
        if (restoreFrom != null) {
            if (restoreFrom.isBlank()) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "Invalid value for option '--restore-from': it is empty; pass a checkpoint directory"
                                + " (<checkpoints.dir>/<jobId>/chk-<n>) or latest:<jobId>.");
            }
            String given = config.get(RESTORE_FROM_KEY);
            if (given != null && !given.equals(restoreFrom)) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "--restore-from " + restoreFrom + " and -D " + RESTORE_FROM_KEY + "=" + given
                                + " name different checkpoints; pass only one of them.");
            }
            config.put(RESTORE_FROM_KEY, restoreFrom);
        }
        if (!Files.isRegularFile(jar)) {
            throw new ClientException(ExitCodes.NOT_FOUND, "There is no jar file " + jar.toAbsolutePath()
                    + "; build it first (mvn package builds sluice-examples/target/sluice-examples.jar) or check the path");
        }
        // The same bytes stored already (an earlier run of this jar): run that copy instead of storing another.
        java.util.Optional<String> stored = JarUploads.findSame(client, jar);
        String jarId = stored.isPresent() ? stored.get() : client.uploadJar(jar).path("id").asText();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("entryClass", entryClass);
        body.put("parallelism", parallelism);
        body.put("args", args);
        body.put("config", config);
        JsonNode answer;
        try {
            answer = runJar(client, jarId, body);
        } catch (ClientException e) {
            if (stored.isEmpty() || e.exitCode() != ExitCodes.NOT_FOUND) {
                throw e;
            }
            // The stored copy went meanwhile (sluice jars delete, rest.jars.delete-with-last-job): upload it after all.
            jarId = client.uploadJar(jar).path("id").asText();
            answer = runJar(client, jarId, body);
        }
        JobId jobId = JobId.of(answer.path("jobId").asText());
        String acceptedBy = answer.path("acceptedBy").isTextual() ? answer.path("acceptedBy").asText() : null;
        boolean forwarded = answer.path("forwarded").asBoolean();
        if (detached) {
            if (options.json()) {
                Map<String, Object> submitted = new LinkedHashMap<>(Map.of("jobId", jobId.toString(), "jarId", jarId));
                if (acceptedBy != null) {
                    submitted.put("acceptedBy", acceptedBy);
                    submitted.put("forwarded", forwarded);
                }
                printJson(out, submitted);
            } else {
                out.println("Job " + jobId + " submitted from " + jar.getFileName()
                        + (acceptedBy == null || !forwarded ? "." : " (forwarded to the leading job manager " + acceptedBy + ")."));
                out.println("Follow it with: sluice status " + jobId + " --watch");
            }
            return ExitCodes.OK;
        }
        if (!options.json()) {
            out.println("Job " + jobId + " submitted from " + jar.getFileName() + "; following it (Ctrl-C stops"
                    + " following, the job keeps running).");
            out.flush();
        }
        int code = new JobWatcher(client, out, options.json(), pollInterval).watch(jobId, null, e ->
                new ClientException(e.exitCode(), e.getMessage() + " (job " + jobId + " may still be running;"
                        + " check with 'sluice status " + jobId + "')", e));
        if (!options.json()) {
            out.println(code == ExitCodes.OK ? "Job " + jobId + " finished." : "Job " + jobId + " did not finish.");
        }
        return code;
    }

    /** {@code POST /v1/jars/{jarId}/run}; a refusal (the program threw, a bad configuration) is the job's failure. */
    private static JsonNode runJar(RestClient client, String jarId, Map<String, Object> body) throws ClientException {
        try {
            return client.postJson("v1/jars/" + jarId + "/run", body);
        } catch (ClientException e) {
            if (e.exitCode() == ExitCodes.REFUSED) {
                throw new ClientException(ExitCodes.JOB_FAILED, "The cluster did not run the job: " + e.getMessage());
            }
            throw e;
        }
    }
}
