package io.sluice.jar;

import java.util.List;
import java.util.Map;

/**
 * How to run an uploaded jar.
 *
 * @param entryClass  the class whose {@code main} builds the job; {@code null}: the manifest's {@code Main-Class}
 * @param parallelism default parallelism of the job's operators ({@code pipeline.parallelism}); {@code null}: the program's
 * @param args        the program's arguments
 * @param config      configuration applied over the program's (e.g. {@code checkpoints.interval},
 *                    {@code checkpoints.restore-from}); keys and values as in {@code docs/configuration.md}
 */
public record ProgramRequest(String entryClass, Integer parallelism, List<String> args, Map<String, String> config) {
    public ProgramRequest {
        args = args == null ? List.of() : List.copyOf(args);
        config = config == null ? Map.of() : Map.copyOf(config);
    }
}
