package io.sluice.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The main-thread I/O guard in both modes: with {@code sluice.forbidIoOnMainThread=true} (tests) a
 * violation throws; without it (production) it is counted and logged with its stack trace, at most
 * once per 10 s per call site, and the call goes ahead.
 */
class MainThreadGuardModesTest {
    private record Logged(String message, Throwable trace) {}

    private final List<Logged> logged = new CopyOnWriteArrayList<>();
    private final ManualClock clock = new ManualClock();
    private boolean guardBefore;
    private MainThreadViolationReporter reporterBefore;

    @BeforeEach
    void setUp() {
        guardBefore = MainThreads.isGuardEnabled();
        reporterBefore = MainThreads.setReporter(
                new MainThreadViolationReporter(clock, (m, t) -> logged.add(new Logged(m, t))));
        MainThreads.markCurrentThread("jobmaster-test");
    }

    @AfterEach
    void tearDown() {
        MainThreads.clearCurrentThread();
        MainThreads.setGuardEnabled(guardBefore);
        MainThreads.setReporter(reporterBefore);
    }

    private static void storageRead() {
        MainThreads.checkNotMainThread("storage get chk-7/_metadata");
    }

    private static void haWrite() {
        MainThreads.checkNotMainThread("job result store put");
    }

    @Test
    void withTheGuardOnAViolationThrowsAndIsCounted() {
        MainThreads.setGuardEnabled(true);
        long before = MainThreads.ioViolations();
        assertThatThrownBy(MainThreadGuardModesTest::storageRead).isInstanceOf(MainThreadViolationException.class)
                .hasMessageContaining("I/O on the main thread of jobmaster-test: storage get chk-7/_metadata");
        assertThat(MainThreads.ioViolations()).isEqualTo(before + 1);
        assertThat(logged).isEmpty();
    }

    @Test
    void inProductionAViolationIsCountedAndLoggedOncePerTenSecondsPerCallSite() {
        MainThreads.setGuardEnabled(false);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MainThreadMetrics.bind(registry);
        long before = MainThreads.ioViolations();

        // One loop, so that every storage read has the same call site (the same stack).
        for (int i = 0; i < 8; i++) {
            if (i == 6) {
                clock.advance(Duration.ofSeconds(9));
            } else if (i == 7) {
                clock.advance(Duration.ofSeconds(1));
            }
            storageRead(); // never throws with the guard off
            if (i == 0) {
                assertThat(logged).hasSize(1);
                Logged first = logged.get(0);
                assertThat(first.message())
                        .contains("I/O on the main thread of jobmaster-test: storage get chk-7/_metadata")
                        .contains("violation " + (before + 1) + " in this process")
                        .contains("-Dsluice.forbidIoOnMainThread=true");
                assertThat(first.trace()).isInstanceOf(MainThreadViolationException.class);
                assertThat(first.trace().getStackTrace()).anyMatch(f -> f.getMethodName().equals("storageRead"));
                haWrite(); // another call site: logged at once
                assertThat(logged).hasSize(2);
                assertThat(logged.get(1).message()).contains("job result store put");
            } else if (i < 7) {
                assertThat(logged).as("same call site within 10 s: counted, not logged").hasSize(2);
            }
        }
        assertThat(logged).hasSize(3);
        assertThat(logged.get(2).message()).contains("storage get").contains("6 more at this call site");

        assertThat(MainThreads.ioViolations()).isEqualTo(before + 9);
        assertThat(registry.get(MainThreadMetrics.IO_VIOLATIONS).functionCounter().count()).isEqualTo(before + 9);
    }

    @Test
    void offAMainThreadNothingIsCountedOrLogged() {
        MainThreads.setGuardEnabled(true);
        MainThreads.clearCurrentThread();
        long before = MainThreads.ioViolations();
        storageRead();
        MainThreads.setGuardEnabled(false);
        storageRead();
        assertThat(MainThreads.ioViolations()).isEqualTo(before);
        assertThat(logged).isEmpty();
    }
}
