package io.sluice.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@link LocalCluster#close} returns only after the I/O already started has finished: a
 * subsumed checkpoint deleted after close once made a test's walk of the checkpoint directory
 * fail with NoSuchFileException (UnreadableCheckpointsITCase, under load).
 */
class LocalClusterCloseTest {

    @Test
    void closeWaitsForStartedIo() throws Exception {
        LocalCluster cluster = LocalCluster.builder().build();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean ioDone = new AtomicBoolean();
        cluster.ioExecutor().execute(() -> {
            started.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ioDone.set(true);
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        AtomicBoolean ioDoneWhenCloseReturned = new AtomicBoolean();
        Thread closer = new Thread(() -> {
            cluster.close();
            ioDoneWhenCloseReturned.set(ioDone.get());
        }, "closer");
        closer.start();
        // The closer either returned already (the old behaviour) or waits for the I/O.
        await().atMost(Duration.ofSeconds(30)).until(() -> !closer.isAlive()
                || (closer.getState() == Thread.State.TIMED_WAITING && onAwaitTermination(closer)));
        release.countDown();
        closer.join(TimeUnit.SECONDS.toMillis(30));

        assertThat(closer.isAlive()).isFalse();
        assertThat(ioDoneWhenCloseReturned).as("the started I/O had finished when close returned").isTrue();
    }

    private static boolean onAwaitTermination(Thread t) {
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getMethodName().equals("awaitTermination")) {
                return true;
            }
        }
        return false;
    }
}
