package io.sluice.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import org.apache.commons.text.similarity.LevenshteinDistance;

/**
 * Every configuration option known in this JVM: the options classes of {@code sluice-core}
 * ({@link ConfigDocs#OPTION_CLASSES}) and those of every {@link ConfigOptionsProvider} found by
 * {@link ServiceLoader}, plus the open prefixes under which unknown keys are only warned about
 * ({@value #USER_PREFIX} for settings of user code). Immutable and thread-safe.
 */
public final class KnownOptions {
    /** Keys under this prefix belong to user code: never checked, only warned about. */
    public static final String USER_PREFIX = "user.";

    private final Map<String, ConfigOption<?>> byKey;
    private final List<String> openPrefixes;

    private KnownOptions(Map<String, ConfigOption<?>> byKey, List<String> openPrefixes) {
        this.byKey = byKey;
        this.openPrefixes = openPrefixes;
    }

    /** The options of sluice-core and of every provider on the class path. Loads classes; call at start-up. */
    public static KnownOptions discover() {
        List<Class<?>> classes = new ArrayList<>(ConfigDocs.OPTION_CLASSES);
        Set<String> prefixes = new LinkedHashSet<>(List.of(USER_PREFIX));
        Set<String> seen = new LinkedHashSet<>();
        for (ClassLoader loader : loaders()) {
            for (ConfigOptionsProvider provider : ServiceLoader.load(ConfigOptionsProvider.class, loader)) {
                if (seen.add(provider.getClass().getName())) {
                    classes.addAll(provider.optionClasses());
                    prefixes.addAll(provider.openPrefixes());
                }
            }
        }
        return of(classes, prefixes);
    }

    private static List<ClassLoader> loaders() {
        List<ClassLoader> loaders = new ArrayList<>();
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null) {
            loaders.add(context);
        }
        if (context != KnownOptions.class.getClassLoader()) {
            loaders.add(KnownOptions.class.getClassLoader());
        }
        return loaders;
    }

    /** The options declared in {@code optionClasses}, with {@code openPrefixes}. */
    public static KnownOptions of(Collection<Class<?>> optionClasses, Collection<String> openPrefixes) {
        Map<String, ConfigOption<?>> byKey = new TreeMap<>();
        for (Class<?> c : optionClasses) {
            for (ConfigOption<?> option : ConfigOptions.declaredIn(c)) {
                byKey.putIfAbsent(option.key(), option);
            }
        }
        return new KnownOptions(Map.copyOf(byKey), List.copyOf(new LinkedHashSet<>(openPrefixes)));
    }

    public Optional<ConfigOption<?>> option(String key) {
        return Optional.ofNullable(byKey.get(key));
    }

    /** Sorted. */
    public List<String> keys() {
        return byKey.keySet().stream().sorted().toList();
    }

    /** The open prefix {@code key} is under, if any. */
    public Optional<String> openPrefixOf(String key) {
        return openPrefixes.stream().filter(key::startsWith).findFirst();
    }

    /**
     * The known key closest to {@code key} by edit distance, if it is close enough to be a likely
     * typo (at most a third of the key's length, and at least 2, edits away).
     */
    public Optional<String> nearestKey(String key) {
        LevenshteinDistance distance = LevenshteinDistance.getDefaultInstance();
        int limit = Math.max(2, key.length() / 3);
        return byKey.keySet().stream()
                .map(k -> Map.entry(k, distance.apply(key, k)))
                .filter(e -> e.getValue() <= limit)
                .min(Comparator.<Map.Entry<String, Integer>>comparingInt(Map.Entry::getValue)
                        .thenComparing(Map.Entry::getKey))
                .map(Map.Entry::getKey);
    }
}
