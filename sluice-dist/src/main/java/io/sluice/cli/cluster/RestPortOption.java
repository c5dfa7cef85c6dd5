package io.sluice.cli.cluster;

import io.sluice.config.Configuration;
import io.sluice.rest.RestOptions;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --port PORT}, the port of the REST API, shared by the commands that serve it
 * ({@code cluster}, {@code jobmanager}); a picocli mixin.
 */
public final class RestPortOption {
    @Option(names = "--port", paramLabel = "PORT",
            description = "Port of the REST API; 0 picks a free one (printed). Default: rest.port, else 8081.")
    private Integer port;

    /**
     * Sets {@code rest.port} in {@code configuration} to the given port, if one was given; a port
     * outside 0..65535 is a usage error of {@code spec}'s command.
     */
    public void applyTo(Configuration configuration, CommandSpec spec) {
        if (port == null) {
            return;
        }
        if (port < 0 || port > 65535) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--port': " + port
                    + "; it must be between 0 (any free port) and 65535.");
        }
        configuration.setString(RestOptions.PORT.key(), Integer.toString(port));
    }
}
