package io.sluice.cli.cluster;

import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads a configuration file for {@code sluice cluster --config FILE}: YAML, either flat
 * ({@code key: value} lines, the keys of {@code docs/configuration.md}) or nested (
 * {@code checkpoints:} / {@code   interval: 1 s} is {@code checkpoints.interval}). Values are kept
 * as strings and checked by the typed options when read. Parsed with SnakeYAML's safe constructor
 * (no objects are created from tags). Blocking (reads the file); call at start-up.
 */
public final class ConfigFile {
    private ConfigFile() {}

    public static Configuration load(Path file) {
        Object root;
        try (Reader in = Files.newBufferedReader(file)) {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
        } catch (IOException e) {
            throw new IllegalConfigurationException("Cannot read the configuration file " + file.toAbsolutePath()
                    + " (" + e + "); check the path given to --config");
        } catch (YAMLException e) {
            throw new IllegalConfigurationException("The configuration file " + file.toAbsolutePath()
                    + " is not valid YAML (" + e.getMessage().lines().findFirst().orElse("") + "); write one"
                    + " 'key: value' per line, e.g. 'checkpoints.interval: 1 s'");
        }
        Map<String, String> flat = new LinkedHashMap<>();
        if (root == null) {
            return new Configuration();
        }
        if (!(root instanceof Map<?, ?> map)) {
            throw new IllegalConfigurationException("The configuration file " + file.toAbsolutePath()
                    + " must hold 'key: value' entries, not a " + root.getClass().getSimpleName());
        }
        flatten("", map, flat, file);
        return new Configuration(flat);
    }

    private static void flatten(String prefix, Map<?, ?> map, Map<String, String> out, Path file) {
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String key = prefix + e.getKey();
            Object value = e.getValue();
            if (value instanceof Map<?, ?> nested) {
                flatten(key + ".", nested, out, file);
            } else if (value instanceof List<?>) {
                throw new IllegalConfigurationException("'" + key + "' in " + file.toAbsolutePath()
                        + " is a list; every Sluice option takes a single value");
            } else if (value == null) {
                throw new IllegalConfigurationException("'" + key + "' in " + file.toAbsolutePath()
                        + " has no value; remove the line or give it a value");
            } else {
                out.put(key, value.toString());
            }
        }
    }
}
