package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.common.ExitCodes;
import java.io.PrintWriter;
import java.util.Locale;
import picocli.CommandLine.Command;

/** {@code sluice jars}: the uploaded jars ({@code GET /v1/jars}); {@code sluice jars delete <id>} deletes one. */
@Command(name = "jars",
        mixinStandardHelpOptions = true,
        subcommands = DeleteJarCommand.class,
        description = "Lists the jars uploaded to the cluster (by 'sluice run' or POST /v1/jars): id, name, size,"
                + " upload time.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {" 0:listed", "69:the cluster cannot be reached", "77:the cluster refused the token"})
public final class JarsCommand extends ClientCommand {

    @Override
    int run(RestClient client, PrintWriter out) throws ClientException {
        JsonNode answer = client.get("v1/jars");
        if (options.json()) {
            out.println(answer.toString());
            return ExitCodes.OK;
        }
        JsonNode jars = answer.path("jars");
        if (jars.isEmpty()) {
            out.println("No jars are stored.");
            return ExitCodes.OK;
        }
        out.printf("%-32s  %-30s  %12s  %s%n", "ID", "NAME", "SIZE", "UPLOADED");
        for (JsonNode j : jars) {
            out.printf(Locale.ROOT, "%-32s  %-30s  %,12d  %s%n", j.path("id").asText(), j.path("name").asText(),
                    j.path("sizeBytes").asLong(), JobText.time(j.path("uploadedAtMillis").asLong()));
        }
        return ExitCodes.OK;
    }
}
