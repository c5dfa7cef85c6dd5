package io.sluice.rest;

import java.util.List;
import java.util.Map;

/**
 * How to run a stored jar.
 *
 * @param entryClass  class whose {@code main(String[])} builds the job, or {@code null} for the jar's
 *                    {@code Main-Class}
 * @param parallelism default parallelism of the job, or {@code null} for the program's own
 * @param args        arguments passed to {@code main}; never {@code null}
 * @param config      job configuration entries ({@code checkpoints.*}, ...); never {@code null}
 */
public record RunRequest(String entryClass, Integer parallelism, List<String> args, Map<String, String> config) {
    public RunRequest {
        args = args == null ? List.of() : List.copyOf(args);
        config = config == null ? Map.of() : Map.copyOf(config);
    }
}
