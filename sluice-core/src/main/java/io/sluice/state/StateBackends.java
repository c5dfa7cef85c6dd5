package io.sluice.state;

import io.sluice.config.Configuration;
import io.sluice.config.StateBackendOptions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * The state backends of one task executor: the default its configuration names
 * ({@code state.backend}), and each backend a job asks for, created from the task executor's
 * configuration on first use (so a task executor that never runs a RocksDB job never loads RocksDB's
 * native library) and closed with the task executor.
 *
 * <p>Backends are found by {@link StateBackendFactory#name()} with {@link ServiceLoader}, on the
 * class path Sluice itself was loaded from (never a job's jar).
 *
 * <p>Threading: thread-safe; {@link #backend} is called from task threads.
 */
public final class StateBackends implements AutoCloseable {
    private final Configuration configuration;
    private final String defaultName;
    private final ClassLoader loader;
    /** Guarded by {@code this}. */
    private final Map<String, StateBackend> created = new LinkedHashMap<>();
    /** Guarded by {@code this}. */
    private boolean closed;

    private StateBackends(Configuration configuration, ClassLoader loader) {
        this.configuration = configuration.copy();
        this.defaultName = configuration.get(StateBackendOptions.BACKEND).backendName();
        this.loader = loader;
    }

    /** The backends of a task executor configured with {@code configuration}. */
    public static StateBackends fromConfiguration(Configuration configuration) {
        return new StateBackends(configuration, StateBackends.class.getClassLoader());
    }

    /** The name of the backend of jobs that choose none. */
    public String defaultName() {
        return defaultName;
    }

    /**
     * The backend named {@code name}, or the default one for {@code null}.
     *
     * @throws UnknownStateBackendException if no such backend is on the class path
     * @throws IllegalStateException if this was closed
     */
    public synchronized StateBackend backend(String name) {
        if (closed) {
            throw new IllegalStateException("The state backends of this task executor are closed");
        }
        String wanted = name == null || name.isBlank() ? defaultName : name.trim();
        StateBackend backend = created.get(wanted);
        if (backend == null) {
            backend = factory(wanted).create(configuration);
            created.put(wanted, backend);
        }
        return backend;
    }

    private StateBackendFactory factory(String name) {
        TreeSet<String> known = new TreeSet<>();
        for (StateBackendFactory f : ServiceLoader.load(StateBackendFactory.class, loader)) {
            if (f.name().equalsIgnoreCase(name)) {
                return f;
            }
            known.add(f.name());
        }
        throw new UnknownStateBackendException("State backend '" + name + "' (state.backend) is not on this task"
                + " executor's class path; known here: " + known + ". Put its module on the task managers' class path"
                + (name.equalsIgnoreCase("rocksdb") ? " (sluice-state-rocksdb and rocksdbjni, in the distribution's lib/)" : "")
                + ", or choose another state.backend");
    }

    /** Closes every backend created; later {@link #backend} calls fail. Idempotent. */
    @Override
    public void close() {
        Map<String, StateBackend> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new LinkedHashMap<>(created);
            created.clear();
        }
        RuntimeException failure = null;
        for (StateBackend b : toClose.values()) {
            try {
                b.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "StateBackends{default=" + defaultName + "}";
    }

    /** For tests: a registry that creates every backend with {@code loader}. */
    static StateBackends withLoader(Configuration configuration, ClassLoader loader) {
        return new StateBackends(configuration, Objects.requireNonNull(loader, "loader"));
    }
}
