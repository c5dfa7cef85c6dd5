package io.sluice.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.testutil.ManualExecutorService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The bound and the order of recovery reads, on a manual I/O executor: nothing runs until the test
 * runs the queue, so "in flight" is exactly what the I/O executor holds.
 */
class RecoveryReadsTest {
    private final ManualExecutorService io = new ManualExecutorService();
    private final List<String> ran = new CopyOnWriteArrayList<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private int maxInFlight;

    private Runnable read(String name) {
        return () -> {
            int now = inFlight.incrementAndGet();
            maxInFlight = Math.max(maxInFlight, now);
            ran.add(name);
            inFlight.decrementAndGet();
        };
    }

    @Test
    void atMostTheBoundRunsAtOnceAndTheRestWaitsInTicketOrder() {
        RecoveryReads reads = new RecoveryReads(3, io);
        List<Long> tickets = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            tickets.add(reads.nextTicket());
        }
        for (int i = 0; i < 10; i++) {
            reads.reserve(tickets.get(i), "job " + i, read("job " + i));
        }
        assertThat(io.numQueued()).as("submitted to the I/O executor").isEqualTo(3);
        assertThat(reads.running()).isEqualTo(3);
        assertThat(reads.queued()).isEqualTo(7);

        int steps = 0;
        while (io.triggerNext()) {
            steps++;
            assertThat(io.numQueued()).as("never more than the bound submitted").isLessThanOrEqualTo(3);
            assertThat(reads.running()).isLessThanOrEqualTo(3);
        }
        assertThat(steps).isEqualTo(10);
        assertThat(ran).containsExactly("job 0", "job 1", "job 2", "job 3", "job 4", "job 5", "job 6", "job 7",
                "job 8", "job 9");
        assertThat(reads.running()).isZero();
        assertThat(reads.queued()).isZero();
    }

    @Test
    void aLaterStepOfAnEarlierJobGoesBeforeJobsThatCameAfterIt() {
        RecoveryReads reads = new RecoveryReads(1, io);
        long first = reads.nextTicket();
        long second = reads.nextTicket();
        long third = reads.nextTicket();
        reads.reserve(first, "graph of 1", read("graph 1"));
        reads.reserve(second, "graph of 2", read("graph 2"));
        reads.reserve(third, "graph of 3", read("graph 3"));
        // Job 1's next step queues (with job 1's ticket) while its graph read still runs.
        reads.reserve(first, "checkpoints of 1", read("checkpoints 1"));
        io.triggerAll();
        assertThat(ran).containsExactly("graph 1", "checkpoints 1", "graph 2", "graph 3");
    }

    @Test
    void aheadCountsTheStepsBeforeAWaitingOneAndIsMinusOneOnceItRuns() {
        RecoveryReads reads = new RecoveryReads(2, io);
        List<RecoveryReads.Reservation> r = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            r.add(reads.reserve(reads.nextTicket(), "job " + i, read("job " + i)));
        }
        assertThat(r.stream().map(RecoveryReads.Reservation::ahead)).containsExactly(-1, -1, 0, 1, 2, 3);
        io.triggerNext();
        assertThat(r.stream().map(RecoveryReads.Reservation::ahead)).containsExactly(-1, -1, -1, 0, 1, 2);
    }

    @Test
    void cancellingAWaitingStepRemovesItAndCancellingASubmittedOneGivesItsSlotBack() {
        RecoveryReads reads = new RecoveryReads(1, io);
        RecoveryReads.Reservation a = reads.reserve(reads.nextTicket(), "a", read("a"));
        RecoveryReads.Reservation b = reads.reserve(reads.nextTicket(), "b", read("b"));
        RecoveryReads.Reservation c = reads.reserve(reads.nextTicket(), "c", read("c"));
        b.cancel();
        assertThat(c.ahead()).isZero();
        a.cancel(); // submitted, not started: its slot goes to c at once
        assertThat(reads.running()).isEqualTo(1);
        io.triggerAll();
        assertThat(ran).containsExactly("c");
        assertThat(reads.running()).isZero();
        a.cancel();
        b.cancel();
        assertThat(reads.running()).isZero();
    }

    @Test
    void aStepThatThrowsGivesItsSlotBack() {
        RecoveryReads reads = new RecoveryReads(1, io);
        reads.reserve(reads.nextTicket(), "fails", () -> {
            throw new IllegalStateException("storage said no");
        });
        reads.reserve(reads.nextTicket(), "next", read("next"));
        io.triggerAll();
        assertThat(ran).containsExactly("next");
        assertThat(reads.running()).isZero();
    }

    @Test
    void aBoundBelowOneIsRefusedNamingTheOption() {
        assertThatThrownBy(() -> new RecoveryReads(0, io))
                .hasMessageContaining("jobmanager.recovery.max-concurrent-reads").hasMessageContaining("got 0");
    }
}
