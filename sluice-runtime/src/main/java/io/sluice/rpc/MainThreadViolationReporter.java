package io.sluice.rpc;

import io.sluice.config.Durations;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

/**
 * Reports main-thread I/O violations in production (guard off, see {@link MainThreads}): each is
 * logged with a stack trace, at most once per {@link #LOG_INTERVAL} per call site (the first
 * {@value #SITE_FRAMES} stack frames above the guard); the ones in between are counted and
 * mentioned in the next log line of that site. Thread-safe; called on the violating thread.
 */
public final class MainThreadViolationReporter {
    /** At most one log line per call site per this interval. */
    public static final Duration LOG_INTERVAL = Duration.ofSeconds(10);
    static final int SITE_FRAMES = 8;
    private static final int MAX_SITES = 1024;

    private final Clock clock;
    private final BiConsumer<String, Throwable> log;
    private final Map<String, Site> sites = new ConcurrentHashMap<>();

    private static final class Site {
        long lastLoggedNanos;
        boolean logged;
        long suppressed;
    }

    /** @param log receives the message and a throwable carrying the violating thread's stack trace */
    public MainThreadViolationReporter(Clock clock, BiConsumer<String, Throwable> log) {
        this.clock = clock;
        this.log = log;
    }

    /** Logs {@code message} unless this call site was logged less than {@link #LOG_INTERVAL} ago. */
    void report(String message, long violationsSoFar) {
        String key = callSite();
        if (sites.size() >= MAX_SITES && !sites.containsKey(key)) {
            sites.clear(); // bounded memory; sites simply log again
        }
        Site site = sites.computeIfAbsent(key, k -> new Site());
        long now = clock.nanoTime();
        long suppressed;
        synchronized (site) {
            if (site.logged && now - site.lastLoggedNanos < LOG_INTERVAL.toNanos()) {
                site.suppressed++;
                return;
            }
            suppressed = site.suppressed;
            site.suppressed = 0;
            site.logged = true;
            site.lastLoggedNanos = now;
        }
        String text = message + " (violation " + violationsSoFar + " in this process"
                + (suppressed > 0 ? "; " + suppressed + " more at this call site since its last report" : "")
                + "; logged at most once per " + Durations.describe(LOG_INTERVAL) + " per call site; start with"
                + " -Dsluice.forbidIoOnMainThread=true to make violations fail)";
        log.accept(text, new MainThreadViolationException(message));
    }

    /** The frames above the guard, as one string. */
    private static String callSite() {
        List<String> frames = StackWalker.getInstance().walk(s -> s
                .dropWhile(f -> f.getClassName().equals(MainThreadViolationReporter.class.getName())
                        || f.getClassName().equals(MainThreads.class.getName()))
                .limit(SITE_FRAMES)
                .map(f -> f.getClassName() + "." + f.getMethodName() + ":" + f.getLineNumber())
                .collect(Collectors.toList()));
        return String.join(" < ", frames);
    }
}
