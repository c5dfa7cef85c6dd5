package io.sluice.connector.kafka;

import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One {@link KafkaBroker} with default settings for every test class of a test run (a broker start costs
 * seconds, so tests share it and use topics and prefixes of their own): a test class registers this extension
 * ({@code @ExtendWith(SharedKafkaBroker.class)}) and takes a {@code KafkaBroker} parameter, usually in its
 * {@code @BeforeAll} method. The broker is started on first use and kept in JUnit's root
 * {@link ExtensionContext.Store}, which closes it (it is {@link AutoCloseable}) when the test run ends, before
 * the Surefire/Failsafe fork says goodbye and exits. It is never closed in a JVM shutdown hook: there Kafka's
 * own hook deletes the broker's directories at the same time, the broker finds its log directory gone and
 * halts the fork with status 1 ("Error occurred in starting fork" after every test had passed).
 *
 * <p>After each test class it fails the class if Kafka asked to exit or halt the JVM meanwhile
 * ({@link KafkaBrokerExitTrap}), saying what Kafka said. Threading: JUnit's (the store is thread-safe).
 * Test code only.
 */
public final class SharedKafkaBroker implements ParameterResolver, AfterAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedKafkaBroker.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == KafkaBroker.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return broker(context);
    }

    /** The run's shared broker, started now if this is its first use. */
    static KafkaBroker broker(ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(KafkaBroker.class, type -> {
            try {
                return KafkaBroker.start();
            } catch (Exception e) {
                throw new ParameterResolutionException("Could not start the shared test Kafka broker: " + e, e);
            }
        }, KafkaBroker.class);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        List<KafkaBrokerExitTrap.Request> requests = KafkaBrokerExitTrap.drain();
        if (!requests.isEmpty()) {
            throw new AssertionError("While " + context.getDisplayName() + " ran, Kafka asked to end the test JVM"
                    + " (refused; the broker may be broken now): " + requests);
        }
    }
}
