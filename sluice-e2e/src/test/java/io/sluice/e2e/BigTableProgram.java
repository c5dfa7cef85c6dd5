package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.StreamExecutionEnvironment;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.ToolProvider;

/**
 * A user's job jar whose map function holds a lookup table of {@code args[0]} random bytes, so its job
 * graph is at least that large: a job too large to send over RPC with a small
 * {@code rpc.max-message-size}. Compiled by the test against sluice-core. Test code only.
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

    /** Compiles the program into {@code dir}/program.jar with a Main-Class; returns the jar. */
    static Path jar(Path dir) throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/bigtable")).resolve("Program.java");
        Files.writeString(src, SOURCE);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        String core = Path.of(StreamExecutionEnvironment.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = ToolProvider.getSystemJavaCompiler().run(null, null, new PrintStream(errors), "-d", classes.toString(),
                "-classpath", core, "-proc:none", "-nowarn", src.toString());
        assertThat(rc).as("javac: %s", errors).isZero();
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "bigtable.Program");
        Path jar = dir.resolve("program.jar");
        try (OutputStream file = Files.newOutputStream(jar);
             JarOutputStream out = new JarOutputStream(file, manifest);
             Stream<Path> all = Files.walk(classes)) {
            for (Path p : (Iterable<Path>) all.filter(Files::isRegularFile)::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
                out.write(Files.readAllBytes(p));
                out.closeEntry();
            }
        }
        return jar;
    }
}
