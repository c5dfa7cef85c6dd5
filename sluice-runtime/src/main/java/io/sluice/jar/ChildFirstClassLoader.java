package io.sluice.jar;

import io.sluice.core.serialization.ClassLoaderValues;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The class loader of one job's jar: the job's own classes (and any library it bundles) come from
 * the jar first, so a job can bring its own version of a library; Sluice's API and runtime
 * ({@code io.sluice.*}), logging ({@code org.slf4j.*}) and the JDK always come from the parent, so
 * the job and the runtime agree on the types they exchange (a class in those packages that the
 * parent does not have, such as the examples' {@code io.sluice.examples.jobs.*}, comes from the jar).
 *
 * <p>It carries the values Sluice keeps per job loader ({@link ClassLoaderValues}), and
 * {@link LiveJobClassLoaders} counts it until it is garbage-collected.
 *
 * <p>Threading: thread-safe (parallel capable). Close it through its {@link ClassLoaderLease}.
 */
final class ChildFirstClassLoader extends URLClassLoader implements ClassLoaderValues {
    /** Packages always loaded parent-first: the types a job shares with the runtime. */
    private static final List<String> PARENT_FIRST = List.of(
            "java.", "javax.", "jdk.", "sun.", "com.sun.", "io.sluice.", "org.slf4j.");

    static {
        ClassLoader.registerAsParallelCapable();
    }

    /** What Sluice keeps per job loader (resolved classes, registered serializers): it goes with the loader. */
    private final ConcurrentMap<Object, Object> sluiceValues = new ConcurrentHashMap<>();

    ChildFirstClassLoader(String name, URL[] urls, ClassLoader parent) {
        super(name, urls, parent);
        LiveJobClassLoaders.track(this);
    }

    @Override
    public ConcurrentMap<Object, Object> sluiceValues() {
        return sluiceValues;
    }

    static boolean parentFirst(String className) {
        for (String prefix : PARENT_FIRST) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                if (parentFirst(name)) {
                    try {
                        c = getParent().loadClass(name);
                    } catch (ClassNotFoundException e) {
                        c = findClass(name); // e.g. a job's own class in an io.sluice.* package
                    }
                } else {
                    try {
                        c = findClass(name);
                    } catch (ClassNotFoundException e) {
                        c = getParent().loadClass(name);
                    }
                }
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    @Override
    public URL getResource(String name) {
        if (parentFirst(name.replace('/', '.'))) {
            return super.getResource(name);
        }
        URL own = findResource(name);
        return own != null ? own : getParent().getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        List<URL> all = new ArrayList<>(Collections.list(findResources(name)));
        all.addAll(Collections.list(getParent().getResources(name)));
        return Collections.enumeration(all);
    }
}
