package io.sluice.jar;

import io.sluice.api.StreamExecutionEnvironment;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Builds user jars for tests: compiles Java sources against sluice-core with the JDK's compiler
 * and packs the classes (and an optional {@code Main-Class}) into a jar. The classes exist only in
 * that jar, never on the test class path, so a job that runs them proves it used the jar's loader.
 */
public final class TestJars {
    private TestJars() {}

    /** A program whose {@code main} builds a counting job: {@code --records N (0: unbounded) --rate R --output DIR --checkpoint-dir DIR}. */
    static final String COUNTING_PROGRAM = """
            package userjob;

            import io.sluice.api.StreamExecutionEnvironment;
            import io.sluice.api.functions.KeySelector;
            import io.sluice.api.functions.MapFunction;
            import io.sluice.api.source.SequenceSource;
            import java.time.Duration;

            public final class CountingProgram {
                /** A user class that must come from the jar. */
                public static final class ModKey implements KeySelector<Long, Long> {
                    @Override public Long getKey(Long v) { return v % 4; }
                }

                public static final class Describe implements MapFunction<Long, String> {
                    @Override public String map(Long v) { return "value " + v; }
                }

                public static void main(String[] args) throws Exception {
                    long records = 0; double rate = 200; String output = null; String checkpoints = null;
                    for (int i = 0; i < args.length; i++) {
                        switch (args[i]) {
                            case "--records" -> records = Long.parseLong(args[++i]);
                            case "--rate" -> rate = Double.parseDouble(args[++i]);
                            case "--output" -> output = args[++i];
                            case "--checkpoint-dir" -> checkpoints = args[++i];
                            default -> throw new IllegalArgumentException("unknown argument " + args[i]);
                        }
                    }
                    StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
                    if (checkpoints != null) {
                        env.enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(checkpoints);
                    }
                    SequenceSource source = records > 0 ? SequenceSource.bounded(0, records - 1) : SequenceSource.unbounded(0);
                    if (rate > 0) {
                        source = source.withRate(rate);
                    }
                    env.fromSource(source, "numbers").keyBy(new ModKey()).map(new Describe()).writeAsTextAtLeastOnce(output);
                    env.execute("counting program");
                    throw new IllegalStateException("not reached on a cluster");
                }
            }
            """;

    /** Compiles {@code sources} (class name -> source) into {@code dir/<jarName>}, with {@code mainClass} in the manifest if not null. */
    public static Path jar(Path dir, String jarName, String mainClass, Map<String, String> sources) {
        try {
            Path src = Files.createTempDirectory(dir, "src");
            Path classes = Files.createTempDirectory(dir, "classes");
            List<String> files = new ArrayList<>();
            for (Map.Entry<String, String> e : sources.entrySet()) {
                Path f = src.resolve(e.getKey().replace('.', '/') + ".java");
                Files.createDirectories(f.getParent());
                Files.writeString(f, e.getValue());
                files.add(f.toString());
            }
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            List<String> options = new ArrayList<>(List.of("-d", classes.toString(), "-classpath", coreClassPath(),
                    "-proc:none", "-nowarn"));
            options.addAll(files);
            StringWriter errors = new StringWriter();
            int rc = javac.run(null, null, new java.io.PrintStream(new java.io.ByteArrayOutputStream()) {
                @Override
                public void write(byte[] b, int off, int len) {
                    errors.write(new String(b, off, len));
                }
            }, options.toArray(String[]::new));
            if (rc != 0) {
                throw new IllegalStateException("Test jar sources do not compile:\n" + errors);
            }
            Manifest manifest = new Manifest();
            manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
            if (mainClass != null) {
                manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, mainClass);
            }
            Path jar = dir.resolve(jarName);
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
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path countingProgramJar(Path dir) {
        return jar(dir, "counting.jar", "userjob.CountingProgram", Map.of("userjob.CountingProgram", COUNTING_PROGRAM));
    }

    private static String coreClassPath() {
        try {
            return Path.of(StreamExecutionEnvironment.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
