package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.e2e.SluiceCluster.SluiceProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Whether a {@code sluice} process still holds job class loaders: instances of the job loader class on
 * its heap after a full GC ({@code jcmd GC.class_histogram}), and, for a process that serves REST, its
 * {@code sluice_job_classloaders_live} gauge. Test code only.
 */
final class JobLoaders {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Pattern LOADER_LINE =
            Pattern.compile("(?m)^\\s*\\d+:\\s+(\\d+)\\s+\\d+\\s+io\\.sluice\\.jar\\.ChildFirstClassLoader\\b");

    private JobLoaders() {}

    /** Awaits (bounded) that {@code p} holds no job loader on its heap; with {@code gauge}, that its gauge says 0 too. */
    static void assertNoneLeftOn(SluiceProcess p, boolean gauge) {
        await().atMost(TIMEOUT).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            assertThat(onHeap(p)).as("job class loaders on the heap of " + p.name() + " after a full GC").isZero();
            if (gauge) {
                assertThat(metric(p.restUrl(), "sluice_job_classloaders_live")).as("the gauge of " + p.name()).isZero();
            }
        });
    }

    /** Instances of the job class loader on the heap of {@code p}, after the full GC that the histogram runs. */
    static long onHeap(SluiceProcess p) throws Exception {
        return in(histogram(p), p.name());
    }

    /** Instances of the job class loader in a class histogram of {@link #histogram}. */
    static long in(String histogram, String process) {
        Matcher m = LOADER_LINE.matcher(histogram);
        long loaders = m.find() ? Long.parseLong(m.group(1)) : 0;
        if (loaders > 0) {
            // what else of the jobs is still on the heap, for the failure message
            System.out.println("Heap of " + process + " with " + loaders + " job loader(s):\n" + histogram.lines()
                    .filter(l -> l.contains("userjob.") || l.contains("io.sluice.examples") || l.contains("io.sluice.taskexecutor.")
                            || l.contains("io.sluice.jar.") || l.contains("io.sluice.operators.") || l.contains("Thread "))
                    .collect(Collectors.joining("\n")));
        }
        return loaders;
    }

    /** {@code jcmd GC.class_histogram} of {@code p}: the live objects per class after the full GC it runs first. */
    static String histogram(SluiceProcess p) throws Exception {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        // jcmd is a short-lived JVM too: the client compiler and the serial collector start it fastest.
        Process run = new ProcessBuilder(jcmd, "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC",
                        Long.toString(p.process().pid()), "GC.class_histogram")
                .redirectErrorStream(true).start();
        String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(run.exitValue()).as("jcmd GC.class_histogram of " + p.name() + ":\n" + out).isZero();
        return out;
    }

    /** The value of gauge {@code name} (the first series) in the {@code /metrics} of {@code restUrl}. */
    static double metric(String restUrl, String name) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(restUrl + "/metrics"))
                .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        Matcher m = Pattern.compile("(?m)^" + name + "(\\{[^}]*\\})?\\s+(\\S+)$").matcher(r.body());
        assertThat(m.find()).as(name + " in /metrics").isTrue();
        return Double.parseDouble(m.group(2));
    }
}
