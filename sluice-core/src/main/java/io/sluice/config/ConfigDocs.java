package io.sluice.config;

import java.util.List;

/**
 * Renders the reference documentation of configuration options as markdown, one table per options
 * class. {@code docs/configuration.md} holds this rendering; {@code ConfigDocsTest} fails when it
 * is stale. Stateless and thread-safe.
 */
public final class ConfigDocs {
    /** Every options class, in the order they appear in the docs. */
    public static final List<Class<?>> OPTION_CLASSES = List.of(
            PipelineOptions.class, ClusterOptions.class, CheckpointingOptions.class, RestartOptions.class,
            HighAvailabilityOptions.class, RpcOptions.class, JobManagerOptions.class, TaskManagerOptions.class,
            HeartbeatOptions.class, SecurityOptions.class, StateBackendOptions.class);

    private ConfigDocs() {}

    /** One {@code ## ClassName} section with a table (key, default, type, description) per class. */
    public static String render(List<Class<?>> optionClasses) {
        StringBuilder out = new StringBuilder();
        for (Class<?> optionsClass : optionClasses) {
            List<ConfigOption<?>> options = ConfigOptions.declaredIn(optionsClass);
            if (options.isEmpty()) {
                throw new IllegalArgumentException(optionsClass.getName()
                        + " declares no public static final ConfigOption fields; is it an options class?");
            }
            out.append("## ").append(optionsClass.getSimpleName()).append("\n\n");
            out.append("| Key | Default | Type | Description |\n");
            out.append("|-----|---------|------|-------------|\n");
            for (ConfigOption<?> option : options) {
                out.append("| `").append(option.key()).append("` | `").append(formatDefault(option))
                        .append("` | ").append(escape(option.typeName())).append(" | ")
                        .append(escape(describe(option))).append(" |\n");
            }
            out.append('\n');
        }
        return out.toString();
    }

    private static <T> String formatDefault(ConfigOption<T> option) {
        return option.format(option.defaultValue());
    }

    private static String describe(ConfigOption<?> option) {
        String requirement = option.requirement();
        return requirement.isEmpty() ? option.description() : option.description() + " Must be " + requirement + ".";
    }

    private static String escape(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    /**
     * Checks (or, with {@code update}, rewrites) the generated section {@code id} of a markdown file:
     * the text between {@code <!-- BEGIN GENERATED: id -->} and {@code <!-- END GENERATED: id -->}
     * must be {@code rendering}. Other modules use this to keep their options' docs in step.
     *
     * @return {@code null} when the file is up to date, else a message saying how to regenerate
     */
    public static String syncSection(java.nio.file.Path file, String id, String rendering, boolean update,
                                     String regenerateCommand) throws java.io.IOException {
        String begin = "<!-- BEGIN GENERATED: " + id + " -->\n";
        String end = "<!-- END GENERATED: " + id + " -->\n";
        String docs = java.nio.file.Files.exists(file) ? java.nio.file.Files.readString(file) : "";
        if (update) {
            int b = docs.indexOf(begin);
            int e = docs.indexOf(end);
            docs = b < 0 || e < b ? docs + (docs.endsWith("\n") || docs.isEmpty() ? "" : "\n") + "\n" + begin + rendering + end
                    : docs.substring(0, b) + begin + rendering + end + docs.substring(e + end.length());
            java.nio.file.Files.writeString(file, docs);
        }
        if (docs.contains(begin + rendering + end)) {
            return null;
        }
        return file.toAbsolutePath().normalize() + " is out of date with the options of " + id
                + ". Regenerate it from the repository root with:\n  " + regenerateCommand + "\nand commit the result.";
    }
}
