package io.sluice.jar;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.runtime.ObjectMethods;

/**
 * Makes the JDK forget the last record class it linked {@code equals}, {@code hashCode} and
 * {@code toString} for. {@link ObjectMethods} builds those methods from a few static method handles
 * and converts them to each record's types with {@code asType}, and a method handle keeps its last
 * conversion in a one-entry cache (a strong reference in JDK 17): so the static handles keep the
 * last record class, and with it the whole class loader of its job, until another record is linked.
 * After a job's loader is closed, {@link #forget} links the methods of a record of Sluice's own,
 * with a {@code String} component, which replaces each of those cache entries.
 *
 * <p>Threading: any thread; stateless.
 */
final class RecordMethodCaches {
    /** A record of Sluice's own: what the JDK's caches hold after {@link #forget}. */
    private record Forgotten(String value) {}

    private RecordMethodCaches() {}

    /** Replaces the JDK's cached conversions to a job's record types; failures are ignored (a later JDK may have none). */
    static void forget() {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            MethodHandle getter = lookup.findGetter(Forgotten.class, "value", String.class);
            ObjectMethods.bootstrap(lookup, "equals",
                    MethodType.methodType(boolean.class, Forgotten.class, Object.class), Forgotten.class, "value", getter);
            ObjectMethods.bootstrap(lookup, "hashCode",
                    MethodType.methodType(int.class, Forgotten.class), Forgotten.class, "value", getter);
            ObjectMethods.bootstrap(lookup, "toString",
                    MethodType.methodType(String.class, Forgotten.class), Forgotten.class, "value", getter);
        } catch (Throwable e) {
            // nothing to forget, or not possible: the cache entries are replaced by the next record linked anyway
        }
    }
}
