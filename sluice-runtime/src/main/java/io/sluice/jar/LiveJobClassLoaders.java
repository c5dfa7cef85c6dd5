package io.sluice.jar;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.metrics.MetricNames;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

/**
 * Counts the job class loaders of this process that are still reachable: each
 * {@link ChildFirstClassLoader} is tracked by a weak reference from its creation, so the count drops
 * only once the loader has been garbage-collected, which it is once its job has ended here and
 * nothing (no static cache, thread, thread local or timer) holds one of its classes or instances.
 * Published as the gauge {@value MetricNames#JOB_CLASSLOADERS_LIVE}.
 *
 * <p>Threading: thread-safe (one lock around the list of references); it holds no loader strongly.
 */
public final class LiveJobClassLoaders {
    private static final List<WeakReference<ClassLoader>> LOADERS = new ArrayList<>();

    private LiveJobClassLoaders() {}

    static void track(ClassLoader loader) {
        synchronized (LOADERS) {
            LOADERS.removeIf(r -> r.get() == null);
            LOADERS.add(new WeakReference<>(loader));
        }
    }

    /** Job class loaders created in this process and not garbage-collected yet (closed or not). */
    public static int count() {
        synchronized (LOADERS) {
            LOADERS.removeIf(r -> r.get() == null);
            return LOADERS.size();
        }
    }

    /** Registers the gauge with {@code registry} (again: no effect). */
    public static void bind(MeterRegistry registry) {
        Gauge.builder(MetricNames.JOB_CLASSLOADERS_LIVE, LiveJobClassLoaders::count)
                .description("job class loaders of this process not garbage-collected yet; falls back after the"
                        + " jobs end and a garbage collection ran")
                .register(registry);
    }
}
