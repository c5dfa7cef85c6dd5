package io.sluice.jar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.ref.WeakReference;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job loader whose record's {@code equals}, {@code hashCode} and {@code toString} the JDK linked last
 * is collectable once {@link RecordMethodCaches#forget} ran (without it, JDK 17's
 * {@code ObjectMethods} keeps the record class, and so the loader, in its handles' one-entry caches;
 * {@code SecondDayITCase} found it on a task manager after a cancelled job with record keys).
 */
class RecordMethodCachesTest {
    private static final String RECORD = """
            package userjob;

            public record Pair(String name, Object value) {
                /** Links the record's equals, hashCode and toString, as keyed state does with a record key. */
                public static boolean link() {
                    Pair a = new Pair("x", 1L);
                    Pair b = new Pair("x", 1L);
                    return a.equals(b) && a.hashCode() == b.hashCode() && !a.toString().isEmpty();
                }
            }
            """;

    @TempDir
    Path dir;

    @Test
    void theLoaderOfTheLastLinkedRecordIsCollectedAfterForget() throws Exception {
        Path jar = TestJars.jar(dir, "records.jar", null, Map.of("userjob.Pair", RECORD));
        int before = LiveJobClassLoaders.count();
        WeakReference<ClassLoader> loader = linkARecordInAJobLoader(jar.toUri().toURL());
        assertThat(LiveJobClassLoaders.count()).as("the gauge counts the new loader").isGreaterThanOrEqualTo(1);

        RecordMethodCaches.forget();

        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            System.gc();
            return loader.get() == null;
        });
        assertThat(LiveJobClassLoaders.count()).as("the gauge counts it no more").isLessThanOrEqualTo(before);
    }

    private static WeakReference<ClassLoader> linkARecordInAJobLoader(URL jar) throws Exception {
        ChildFirstClassLoader loader = new ChildFirstClassLoader("job-test", new URL[] {jar},
                RecordMethodCachesTest.class.getClassLoader());
        Class<?> pair = Class.forName("userjob.Pair", true, loader);
        assertThat(pair.getMethod("link").invoke(null)).isEqualTo(true);
        loader.close();
        return new WeakReference<>(loader);
    }
}
