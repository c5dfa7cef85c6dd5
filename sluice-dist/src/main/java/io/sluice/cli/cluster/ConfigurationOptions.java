package io.sluice.cli.cluster;

import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --config FILE} and {@code -D key=value}, shared by the commands that start cluster
 * processes ({@code cluster}, {@code jobmanager}, {@code taskmanager}); a picocli mixin.
 */
public final class ConfigurationOptions {
    @Option(names = "--config", paramLabel = "FILE",
            description = "YAML configuration file: 'key: value' lines (or nested keys) as in docs/configuration.md.")
    private Path configFile;

    @Option(names = "-D", paramLabel = "KEY=VALUE", mapFallbackValue = "",
            description = "A configuration entry, over the file's; repeatable, e.g. -D high-availability.dir=/data/ha.")
    private Map<String, String> overrides = new LinkedHashMap<>();

    /** The file's entries with the {@code -D} entries over them; a bad file is a usage error of {@code spec}'s command. */
    public Configuration load(CommandSpec spec) {
        Configuration c;
        try {
            c = configFile != null ? ConfigFile.load(configFile) : new Configuration();
        } catch (IllegalConfigurationException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        overrides.forEach(c::setString);
        return c;
    }
}
