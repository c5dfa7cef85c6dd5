package io.sluice.api.execution;

import io.sluice.config.Configuration;
import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * The context a program's {@code main} runs in when a cluster runs it from a jar: the executor
 * that receives the job graph, and the configuration the run adds (the {@code -D key=value}
 * overrides and {@code --parallelism} of {@code sluice run}). Bound to one thread while
 * {@link #call} runs: every {@link io.sluice.api.StreamExecutionEnvironment} created on that thread
 * takes the configuration (over its own, and the cluster's job defaults under it) and hands its
 * graph to the executor.
 *
 * <p>Threading: immutable; {@link #current()} reads the calling thread's binding.
 */
public final class ExecutionContext {
    private static final ThreadLocal<ExecutionContext> CURRENT = new ThreadLocal<>();

    private final JobExecutor executor;
    private final Configuration configuration;
    private final Configuration defaults;

    public ExecutionContext(JobExecutor executor, Configuration configuration) {
        this(executor, new Configuration(), configuration);
    }

    /**
     * @param defaults      job settings of the cluster's configuration, applied <em>under</em> the
     *                      program's own configuration
     * @param configuration the run's settings, applied <em>over</em> the program's configuration
     */
    public ExecutionContext(JobExecutor executor, Configuration defaults, Configuration configuration) {
        this.executor = Objects.requireNonNull(executor, "executor");
        this.defaults = defaults.copy();
        this.configuration = configuration.copy();
    }

    /** A copy of the cluster's job defaults (under the program's configuration). */
    public Configuration defaults() {
        return defaults.copy();
    }

    public JobExecutor executor() {
        return executor;
    }

    /** A copy of the run's configuration. */
    public Configuration configuration() {
        return configuration.copy();
    }

    /** The context bound to the calling thread, or {@code null} outside any. */
    public static ExecutionContext current() {
        return CURRENT.get();
    }

    /** Runs {@code body} on the calling thread with this context bound to it; restores the previous binding after. */
    public <T> T call(Callable<T> body) throws Exception {
        ExecutionContext previous = CURRENT.get();
        CURRENT.set(this);
        try {
            return body.call();
        } finally {
            if (previous == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(previous);
            }
        }
    }
}
