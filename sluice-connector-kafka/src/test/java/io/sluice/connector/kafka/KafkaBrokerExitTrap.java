package io.sluice.connector.kafka;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Exit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps Kafka from ending the test JVM while a {@link KafkaBroker} runs in it. A broker calls
 * {@link Exit#halt} with status 1 when its log directory fails ("Shutdown broker because all log dirs in
 * ... have failed"; in the combined test node that directory is also the metadata log's), and
 * {@link Exit#exit} on some fatal errors. In a Surefire/Failsafe fork that ends the fork with a non-zero
 * status, which the build reports as "Error occurred in starting fork" even when every test passed, and the
 * cause is lost. While armed (from the first running broker's start to the last one's close) both are
 * replaced: the request is logged, recorded ({@link #drain}) and thrown back, as an
 * {@link IllegalStateException}, to the Kafka thread that made it; the JVM lives on and the test that was
 * running (or {@link SharedKafkaBroker} after the test class) fails with what Kafka said.
 *
 * <p>Threading: thread-safe (Kafka threads request exits; test threads arm, disarm and drain).
 * Test code only (in the test jar, with {@link KafkaBroker}).
 */
final class KafkaBrokerExitTrap {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaBrokerExitTrap.class);

    /** One exit or halt that Kafka asked for. */
    record Request(String kind, int status, String message, String thread) {
        @Override
        public String toString() {
            return "Kafka asked to " + kind + " the JVM with status " + status + " (\"" + message + "\", thread "
                    + thread + ")";
        }
    }

    private static final Object LOCK = new Object();
    private static int brokers;
    private static final List<Request> requests = new ArrayList<>();

    private KafkaBrokerExitTrap() {
    }

    /** A broker starts: from now on until the last one is closed, Kafka's exits and halts are trapped. */
    static void arm() {
        synchronized (LOCK) {
            if (brokers++ == 0) {
                Exit.setExitProcedure((status, message) -> trap("exit", status, message));
                Exit.setHaltProcedure((status, message) -> trap("halt", status, message));
            }
        }
    }

    /** A broker is closed (or failed to start): the last one restores Kafka's own exit and halt. */
    static void disarm() {
        synchronized (LOCK) {
            if (brokers == 0) {
                throw new IllegalStateException("KafkaBrokerExitTrap disarmed more often than armed");
            }
            if (--brokers == 0) {
                Exit.resetExitProcedure();
                Exit.resetHaltProcedure();
            }
        }
    }

    /** Whether exits and halts are trapped now. */
    static boolean armed() {
        synchronized (LOCK) {
            return brokers > 0;
        }
    }

    /** The exits and halts requested since the last call, oldest first. */
    static List<Request> drain() {
        synchronized (LOCK) {
            List<Request> out = List.copyOf(requests);
            requests.clear();
            return out;
        }
    }

    private static void trap(String kind, int status, String message) {
        Request r = new Request(kind, status, message, Thread.currentThread().getName());
        synchronized (LOCK) {
            requests.add(r);
        }
        LOG.error("{}; refused: a test broker never ends the test JVM (the test fails instead)", r);
        throw new IllegalStateException(r + "; refused in the test JVM by KafkaBrokerExitTrap");
    }
}
