package io.sluice.compare.flink;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.runtime.highavailability.HighAvailabilityServices;

/**
 * Wraps Flink's HA services so that a MiniCluster's close keeps the HA data (job graphs,
 * checkpoint pointers in ZooKeeper, HA storage) instead of deleting it: the clean-up calls
 * become a plain close. A new MiniCluster on the same ZooKeeper then recovers the job, as a
 * restarted job manager would. A dynamic proxy, because the HA interface's clean-up methods differ
 * between Flink versions ({@code closeAndCleanupAllData} in 1.13/1.14, {@code cleanupAllData},
 * {@code closeWithOptionalClean} and {@code globalCleanupAsync} in 1.20).
 */
final class RetainingHaServices implements InvocationHandler {
    private final HighAvailabilityServices delegate;

    private RetainingHaServices(HighAvailabilityServices delegate) {
        this.delegate = delegate;
    }

    static HighAvailabilityServices wrap(HighAvailabilityServices delegate) {
        return (HighAvailabilityServices) Proxy.newProxyInstance(HighAvailabilityServices.class.getClassLoader(),
                new Class<?>[] {HighAvailabilityServices.class}, new RetainingHaServices(delegate));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        switch (method.getName()) {
            case "closeAndCleanupAllData", "closeWithOptionalClean" -> {
                delegate.close();
                return null;
            }
            case "cleanupAllData", "cleanupJobData" -> {
                return null;
            }
            case "globalCleanupAsync" -> {
                return CompletableFuture.completedFuture(null);
            }
            case "equals" -> {
                return proxy == args[0];
            }
            case "hashCode" -> {
                return System.identityHashCode(proxy);
            }
            case "toString" -> {
                return "RetainingHaServices(" + delegate + ")";
            }
            default -> {
                try {
                    return method.invoke(delegate, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
        }
    }
}
