package io.sluice.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.checkpoint.Savepoint;
import io.sluice.graph.JobId;
import io.sluice.jobmaster.JobManagerServices;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.slots.SlotPool;
import io.sluice.testutil.ManualExecutorService;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.testutil.TestingHaServices;
import io.sluice.testutil.TestingTaskExecutorGateway;
import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Dispatcher's savepoint listing over the HA savepoint store, step by step on a manual main thread,
 * I/O executor and clock: a new leader reads the stored entries once and listings wait for that read; a
 * failed read fails listings saying why and is retried with the recovery backoff; unreadable entries are
 * left out; a standby reads the job's entries for each listing.
 */
@Timeout(30)
class DurableSavepointsTest {
    private static final String CONTENDER = "jm-test";
    private static final RecoveryBackoff BACKOFF = new RecoveryBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0);

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor main = new ManuallyTriggeredMainThreadExecutor("dispatcher-test", clock);
    private final ManualExecutorService io = new ManualExecutorService();
    private final TestingHaServices ha = new TestingHaServices();
    private final JobId job = JobId.generate();
    private final Savepoint first = new Savepoint(job, 3, "file:///sp/savepoint-3", 10, 11, 100);
    private final Savepoint second = new Savepoint(job, 7, "file:///sp/savepoint-7", 20, 21, 200);
    private CheckpointStorageRegistry storages;
    private Dispatcher dispatcher;

    @BeforeEach
    void setUp() throws Exception {
        storages = new CheckpointStorageRegistry(new SimpleMeterRegistry());
        JobManagerServices services = new JobManagerServices(ha, storages,
                new SlotPool(List.of(new TestingTaskExecutorGateway("te-1", 4))), (jobId, deployment) -> { }, io,
                clock, new Random(1), BACKOFF, CONTENDER, RecoveryBackoff.UNUSABLE_CHECKPOINTS,
                name -> new ManuallyTriggeredMainThreadExecutor(name, clock));
        dispatcher = new Dispatcher(services, main);
        dispatcher.start();
        runAll();
        ha.savepointStore().addSavepoint(second, SavepointHistory.PER_JOB);
        ha.savepointStore().addSavepoint(first, SavepointHistory.PER_JOB);
        ha.savepointStore().addUnreadable("entry 0000000000000000009 of job " + job + ": garbage");
    }

    @AfterEach
    void tearDown() {
        storages.close();
    }

    @Test
    void aNewLeaderReadsTheStoredEntriesOnceAndListingsWaitForThatRead() {
        ha.dispatcherElection(CONTENDER).grant();
        main.triggerAll(); // the grant: the read is queued on the I/O executor, not run
        CompletableFuture<List<Savepoint>> listing = dispatcher.listSavepoints(job);
        main.triggerAll();
        assertThat(listing).as("waits for the read of the stored entries").isNotDone();

        runAll();
        assertThat(listing).isCompletedWithValue(List.of(first, second));
        assertThat(ha.savepointStore().reads()).isEqualTo(1);

        CompletableFuture<List<Savepoint>> again = dispatcher.listSavepoints(job);
        runAll();
        assertThat(again).isCompletedWithValue(List.of(first, second));
        assertThat(dispatcher.listSavepoints(JobId.generate())).satisfies(f -> {
            runAll();
            assertThat(f).isCompletedWithValue(List.of());
        });
        assertThat(ha.savepointStore().reads()).as("the leader answers from memory once read").isEqualTo(1);
    }

    @Test
    void aFailedReadFailsListingsSayingWhyAndIsRetriedWithTheRecoveryBackoff() {
        ha.savepointStore().failReads(1);
        ha.dispatcherElection(CONTENDER).grant();
        runAll();
        CompletableFuture<List<Savepoint>> failed = dispatcher.listSavepoints(job);
        runAll();
        assertThat(failed).isCompletedExceptionally();
        assertThatThrownBy(failed::join).cause().isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("The savepoints of job " + job + " cannot be listed yet")
                .hasMessageContaining("savepoint store unreachable (injected)")
                .hasMessageContaining("ask again in a moment");
        assertThat(ha.savepointStore().reads()).isEqualTo(1);

        main.advanceTime(Duration.ofMillis(100));
        runAll();
        assertThat(ha.savepointStore().reads()).isEqualTo(2);
        CompletableFuture<List<Savepoint>> listing = dispatcher.listSavepoints(job);
        runAll();
        assertThat(listing).isCompletedWithValue(List.of(first, second));
    }

    @Test
    void aStandbyReadsTheJobsEntriesForEachListing() {
        CompletableFuture<List<Savepoint>> listing = dispatcher.listSavepoints(job);
        runAll();
        assertThat(listing).isCompletedWithValue(List.of(first, second));
        dispatcher.listSavepoints(job);
        runAll();
        assertThat(ha.savepointStore().reads()).isEqualTo(2);
    }

    @Test
    void aLostLeadershipStopsThePendingReadAndWaitingListingsAnswerFromTheStore() {
        ha.savepointStore().failReads(Integer.MAX_VALUE);
        ha.dispatcherElection(CONTENDER).grant();
        main.triggerAll();
        CompletableFuture<List<Savepoint>> listing = dispatcher.listSavepoints(job);
        main.triggerAll();
        assertThat(listing).isNotDone();
        ha.dispatcherElection(CONTENDER).revoke();
        main.triggerAll();
        ha.savepointStore().failReads(0);
        runAll();
        int reads = ha.savepointStore().reads();
        main.advanceTime(Duration.ofSeconds(5));
        runAll();
        assertThat(ha.savepointStore().reads()).as("no retry after the revocation").isEqualTo(reads);
        assertThat(listing).as("a standby now: read from the store").isCompletedWithValue(List.of(first, second));
    }

    private void runAll() {
        int ran;
        do {
            ran = main.triggerAll() + io.triggerAll();
        } while (ran > 0);
    }
}
