package io.sluice.jar;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.SerializerRegistry;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import java.net.URL;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two job loaders over one jar (the same jar submitted twice) each read values of their own classes
 * through the dynamic serializer, and each register the same user serializer id: nothing JVM-wide
 * keeps the first job's classes (before, the dynamic serializer's static class cache handed the
 * second job the first job's {@code Click}, and a second registration of an id failed).
 */
class JobClassIsolationTest {
    private static final String SOURCES = """
            package userjob;

            import io.sluice.core.serialization.SerializerRegistry;
            import io.sluice.core.serialization.Serializers;

            public final class Jobs {
                public enum Color { RED, GREEN }

                public record Click(long time, String user, Color color) {}

                public static Object click() { return new Click(7, "ann", Color.GREEN); }

                /** Registers the id "userjob.click" for this loader, as a job's main would. */
                public static void register() {
                    SerializerRegistry.register("userjob.click", 1, (v, p, n, cl) -> Serializers.dynamic());
                }
            }
            """;

    @TempDir
    Path dir;

    @Test
    void eachJobLoaderReadsItsOwnClassesAndRegistersItsOwnSerializers() throws Exception {
        URL jar = TestJars.jar(dir, "jobs.jar", null, Map.of("userjob.Jobs", SOURCES)).toUri().toURL();
        try (ChildFirstClassLoader first = new ChildFirstClassLoader("job-1", new URL[] {jar}, getClass().getClassLoader());
             ChildFirstClassLoader second = new ChildFirstClassLoader("job-2", new URL[] {jar}, getClass().getClassLoader())) {
            for (ChildFirstClassLoader loader : new ChildFirstClassLoader[] {first, second}) {
                Class<?> jobs = Class.forName("userjob.Jobs", true, loader);
                Object click = jobs.getMethod("click").invoke(null);
                Object read = withContextLoader(loader, () -> roundTrip(click));
                assertThat(read.getClass()).as("the record class read back in " + loader.getName())
                        .isSameAs(click.getClass()).isNotSameAs(otherLoadersClick(loader == first ? second : first));
                assertThat(read).isEqualTo(click);

                jobs.getMethod("register").invoke(null);
                DataOutputBuffer out = new DataOutputBuffer(32);
                SerializerRegistry.write(new Identified("userjob.click"), out);
                assertThat(SerializerRegistry.read(new DataInputBuffer(out.toByteArray()), loader))
                        .as("the id registered by " + loader.getName()).isSameAs(Serializers.dynamic());
            }
        }
    }

    private static Class<?> otherLoadersClick(ClassLoader other) throws ClassNotFoundException {
        return Class.forName("userjob.Jobs$Click", false, other);
    }

    private static Object roundTrip(Object value) {
        DataOutputBuffer out = new DataOutputBuffer(64);
        Serializers.dynamic().serialize(value, out);
        return Serializers.dynamic().deserialize(new DataInputBuffer(out.toByteArray()));
    }

    private static <T> T withContextLoader(ClassLoader loader, java.util.concurrent.Callable<T> body) throws Exception {
        Thread t = Thread.currentThread();
        ClassLoader previous = t.getContextClassLoader();
        t.setContextClassLoader(loader);
        try {
            return body.call();
        } finally {
            t.setContextClassLoader(previous);
        }
    }

    /** A serializer that records only its id (so reading it back resolves through the registry). */
    private record Identified(String id) implements TypeSerializer<Object> {
        @Override
        public void serialize(Object value, DataOutputBuffer out) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object deserialize(DataInputBuffer in) {
            throw new UnsupportedOperationException();
        }

        @Override
        public io.sluice.core.serialization.SerializerIdentity identity() {
            return io.sluice.core.serialization.SerializerIdentity.of(id, 1);
        }
    }
}
