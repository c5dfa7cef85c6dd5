package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.cli.common.ExitCodes;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.stream.Stream;

/** The {@code sluice} command line run in this JVM through {@link SluiceCli#commandLine()}, for the tests. */
final class Cli {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Cli() {
    }

    /** The outcome of one in-process command. */
    record Result(int exitCode, String out, String err) {
        JsonNode json() throws IOException {
            return JSON.readTree(out);
        }
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = SluiceCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    /** Runs {@code command} against {@code url} with {@code --output json}, asserts exit 0 and returns the JSON. */
    static JsonNode json(String url, String... command) throws IOException {
        String[] args = Stream.concat(Stream.of(command), Stream.of("--cluster", url, "--output", "json"))
                .toArray(String[]::new);
        Result r = run(args);
        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.OK);
        return r.json();
    }
}
