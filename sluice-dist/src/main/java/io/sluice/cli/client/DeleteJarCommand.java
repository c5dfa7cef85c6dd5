package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.common.ExitCodes;
import java.io.PrintWriter;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code sluice jars delete <id>}: deletes an uploaded jar ({@code DELETE /v1/jars/{jarId}}). */
@Command(name = "delete",
        mixinStandardHelpOptions = true,
        description = "Deletes an uploaded jar: it is no longer listed or runnable, and its file is removed."
                + " Refused while a job run from it has not ended (the message names the jobs: cancel them first).",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {" 0:deleted", "64:not a jar id", "65:refused (a job run from the jar has not ended)",
            "66:no such jar", "69:the cluster cannot be reached", "77:the cluster refused the token"})
public final class DeleteJarCommand extends ClientCommand {
    private static final Pattern JAR_ID = Pattern.compile("[0-9a-f]{32}");

    @Parameters(index = "0", paramLabel = "JAR", description = "The jar id (from 'sluice jars').")
    String jar;

    @Override
    int run(RestClient client, PrintWriter out) throws ClientException {
        if (!JAR_ID.matcher(jar).matches()) {
            throw new ParameterException(spec.commandLine(), "'" + jar + "' is not a jar id; a jar id is 32 hexadecimal"
                    + " digits, as 'sluice jars' shows");
        }
        JsonNode deleted = client.delete("v1/jars/" + jar);
        if (options.json()) {
            out.println(deleted.toString());
        } else {
            out.println("Deleted the jar " + jar + " (" + deleted.path("name").asText() + ").");
        }
        return ExitCodes.OK;
    }
}
