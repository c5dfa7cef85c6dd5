package io.sluice.ha.loader;

import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.HighAvailabilityServicesFactory;
import io.sluice.ha.embedded.EmbeddedHaServicesFactory;

/**
 * Creates the {@link HighAvailabilityServices} chosen by {@code high-availability.type}:
 * {@code embedded}, {@code memory}, {@code zookeeper} (needs the {@code sluice-ha-zookeeper} jar), or the fully qualified name of a {@link HighAvailabilityServicesFactory} with
 * a public no-argument constructor. Stateless; blocking as much as the chosen factory.
 */
public final class HighAvailabilityServicesLoader {
    public static final String EMBEDDED = "embedded";
    public static final String MEMORY = "memory";
    /** ZooKeeper (module {@code sluice-ha-zookeeper}, which must be on the classpath). */
    public static final String ZOOKEEPER = "zookeeper";
    /** The factory class behind {@link #ZOOKEEPER}, loaded reflectively so this module needs no ZooKeeper client. */
    public static final String ZOOKEEPER_FACTORY_CLASS = "io.sluice.ha.zookeeper.ZooKeeperHaServicesFactory";

    private HighAvailabilityServicesLoader() {}

    /**
     * Validates {@code configuration} ({@link Configuration#validateAll()}: an unknown key fails
     * naming the nearest known one), then creates the services it selects.
     */
    public static HighAvailabilityServices load(Configuration configuration) throws Exception {
        configuration.validateAll();
        return factoryFor(configuration.get(HighAvailabilityOptions.TYPE)).create(configuration);
    }

    /** The factory named by {@code type}, as {@code high-availability.type} would. */
    public static HighAvailabilityServicesFactory factoryFor(String type) {
        if (EMBEDDED.equals(type)) {
            return new EmbeddedHaServicesFactory();
        }
        if (MEMORY.equals(type)) {
            return configuration -> new io.sluice.ha.memory.InMemoryHaServices();
        }
        String key = HighAvailabilityOptions.TYPE.key();
        if (ZOOKEEPER.equals(type)) {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            try {
                Class.forName(ZOOKEEPER_FACTORY_CLASS, false,
                        loader != null ? loader : HighAvailabilityServicesLoader.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalConfigurationException(key + " is '" + ZOOKEEPER + "', but the ZooKeeper HA services ("
                        + ZOOKEEPER_FACTORY_CLASS + ") are not on the classpath. Add the sluice-ha-zookeeper jar and its"
                        + " dependencies (Apache Curator).", e);
            }
            type = ZOOKEEPER_FACTORY_CLASS;
        }
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        Class<?> factoryClass;
        try {
            factoryClass = Class.forName(type, true,
                    loader != null ? loader : HighAvailabilityServicesLoader.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalConfigurationException(key + " is '" + type + "', which is neither '" + EMBEDDED
                    + "' nor a class on the classpath. Use '" + EMBEDDED + "', or the fully qualified name of a "
                    + HighAvailabilityServicesFactory.class.getSimpleName() + " and add its jar to the classpath.", e);
        }
        if (!HighAvailabilityServicesFactory.class.isAssignableFrom(factoryClass)) {
            throw new IllegalConfigurationException(key + " names " + type + ", which does not implement "
                    + HighAvailabilityServicesFactory.class.getName() + "; name a factory class instead.");
        }
        try {
            return (HighAvailabilityServicesFactory) factoryClass.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalConfigurationException(key + " names " + type + ", which could not be instantiated ("
                    + e + "); it needs a public no-argument constructor.", e);
        }
    }
}
