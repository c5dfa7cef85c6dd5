package io.sluice.rpc;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Publishes {@link MainThreads#ioViolations()} as the counter {@value #IO_VIOLATIONS}: main-thread
 * I/O violations in this process since it started (thrown in tests, logged in production). A
 * {@code LocalCluster} binds it to its meter registry. Stateless.
 */
public final class MainThreadMetrics implements MeterBinder {
    public static final String IO_VIOLATIONS = "sluice.main_thread.io_violations";
    private static final MainThreadMetrics INSTANCE = new MainThreadMetrics();

    private MainThreadMetrics() {}

    public static void bind(MeterRegistry registry) {
        INSTANCE.bindTo(registry);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionCounter.builder(IO_VIOLATIONS, INSTANCE, m -> MainThreads.ioViolations())
                .description("I/O calls made on a component main thread (storage, HA); should stay 0")
                .register(registry);
    }
}
