package io.sluice.e2e;

import io.sluice.jar.TestJars;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A user's job jar whose map function holds a lookup table of {@code args[0]} random bytes, so its job
 * graph is at least that large: a job too large to send over RPC with a small
 * {@code rpc.max-message-size}. Compiled by the test against sluice-core ({@link TestJars}). Test code only.
 */
final class BigTableProgram {
    private static final String SOURCE = """
            package bigtable;

            import io.sluice.api.StreamExecutionEnvironment;
            import io.sluice.api.functions.MapFunction;
            import io.sluice.api.sink.DiscardingSink;
            import io.sluice.api.source.SequenceSource;

            public final class Program {
                public static final class Lookup implements MapFunction<Long, Long> {
                    private final byte[] table;

                    Lookup(byte[] table) { this.table = table; }

                    @Override public Long map(Long v) { return v + table[(int) (v % table.length)]; }
                }

                public static void main(String[] args) throws Exception {
                    byte[] table = new byte[Integer.parseInt(args[0])];
                    new java.util.Random(1).nextBytes(table);
                    StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
                    env.fromSource(SequenceSource.bounded(0, 999), "numbers").map(new Lookup(table))
                            .addSink(new DiscardingSink<>(), "discard");
                    env.execute("lookup table of " + table.length + " bytes");
                }
            }
            """;

    private BigTableProgram() {}

    /** Compiles the program into a jar in {@code dir} with a Main-Class; returns the jar. */
    static Path jar(Path dir) throws Exception {
        return TestJars.jar(Files.createDirectories(dir), "program.jar", "bigtable.Program",
                Map.of("bigtable.Program", SOURCE));
    }
}
