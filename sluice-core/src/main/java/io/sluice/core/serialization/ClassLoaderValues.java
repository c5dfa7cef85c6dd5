package io.sluice.core.serialization;

import java.util.concurrent.ConcurrentMap;

/**
 * A class loader that carries values Sluice keeps per loader (the classes a serializer resolved by
 * name, the serializer ids a job registered), so that they live exactly as long as the loader and no
 * static place of Sluice holds a job's class or instance after the job. Each job's class loader
 * implements it; see {@link PerClassLoader}.
 *
 * <p>Threading: the map is concurrent; any thread.
 */
public interface ClassLoaderValues {
    /** The values kept with this loader, by {@link PerClassLoader} key. */
    ConcurrentMap<Object, Object> sluiceValues();
}
