package io.sluice.rpc.remote;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The endpoints of one {@link RpcService}: those exposed by name, and the objects exported because
 * they were passed by reference (under generated names, once per object identity, held weakly and
 * dropped once collected). Thread-safe: lookups are lock-free; changes to the identity index take a
 * short lock.
 */
final class EndpointRegistry {
    private final String namePrefix;
    private final Map<String, Endpoint> endpoints = new ConcurrentHashMap<>();
    private final Map<IdentityKey, String> namesByObject = new HashMap<>(); // guarded by itself
    private final ReferenceQueue<Object> collected = new ReferenceQueue<>();
    private final AtomicLong nextExport = new AtomicLong();

    /** @param namePrefix distinguishes the generated names of this service's exports ({@code jobmaster-<prefix>-<n>}) */
    EndpointRegistry(String namePrefix) {
        this.namePrefix = namePrefix;
    }

    Endpoint get(String name) {
        return endpoints.get(name);
    }

    /** The endpoint's object, or {@code null} if there is none by that name or its object was collected (then it is dropped). */
    Object target(String name) {
        Endpoint endpoint = endpoints.get(name);
        Object target = endpoint == null ? null : endpoint.target();
        if (endpoint != null && target == null) {
            endpoints.remove(name, endpoint);
        }
        return target;
    }

    void expose(Endpoint endpoint, Object target) {
        endpoints.put(endpoint.name, endpoint);
        synchronized (namesByObject) {
            namesByObject.put(new IdentityKey(target, null), endpoint.name);
        }
    }

    void unexpose(String name) {
        Endpoint removed = endpoints.remove(name);
        Object target = removed == null ? null : removed.target();
        if (target != null) {
            synchronized (namesByObject) {
                namesByObject.remove(new IdentityKey(target, null));
            }
        }
    }

    void unexport(Object target) {
        String name;
        synchronized (namesByObject) {
            name = namesByObject.remove(new IdentityKey(target, null));
        }
        if (name != null) {
            endpoints.remove(name);
        }
    }

    /** The endpoint of {@code object}: the one it is exposed or exported under, or a new weak export. */
    Endpoint exportByReference(Object object, List<Class<?>> interfaces) {
        synchronized (namesByObject) {
            expungeCollected();
            String name = namesByObject.get(new IdentityKey(object, null));
            Endpoint endpoint = name == null ? null : endpoints.get(name);
            if (endpoint != null && endpoint.target() == object) {
                return endpoint;
            }
            String base = interfaces.get(0).getSimpleName().replace("Gateway", "").toLowerCase(Locale.ROOT);
            name = (base.isEmpty() ? "gateway" : base) + "-" + namePrefix + "-" + nextExport.incrementAndGet();
            // A fenced gateway's export is fenced with its own token; the supplier holds the object only weakly.
            endpoint = new Endpoint(name, interfaces, object, true, object instanceof FencedGateway ? tokenOf(object) : null);
            endpoints.put(name, endpoint);
            namesByObject.put(new IdentityKey(object, collected), name);
            return endpoint;
        }
    }

    private static java.util.function.Supplier<java.util.UUID> tokenOf(Object fenced) {
        WeakReference<Object> ref = new WeakReference<>(fenced);
        return () -> ref.get() instanceof FencedGateway f ? f.fencingToken() : null;
    }

    /** The names exposed now, sorted. */
    List<String> names() {
        return List.copyOf(new TreeSet<>(endpoints.keySet()));
    }

    void clear() {
        endpoints.clear();
        synchronized (namesByObject) {
            namesByObject.clear();
        }
    }

    /** Drops the exports of objects that were garbage-collected. Holds {@code namesByObject}. */
    private void expungeCollected() {
        for (Reference<?> r; (r = collected.poll()) != null; ) {
            String name = namesByObject.remove((IdentityKey) r);
            if (name != null) {
                endpoints.remove(name);
            }
        }
    }

    /** A weak key comparing its referent by identity (a lookup key has no queue and compares the same way). */
    private static final class IdentityKey extends WeakReference<Object> {
        private final int hash;

        IdentityKey(Object referent, ReferenceQueue<Object> queue) {
            super(referent, queue);
            this.hash = System.identityHashCode(referent);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof IdentityKey other)) {
                return false;
            }
            Object mine = get();
            return mine != null && mine == other.get();
        }
    }
}
