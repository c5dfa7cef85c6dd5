package io.sluice.operators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.errors.UnrecoverableJobException;
import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.junit.jupiter.api.Test;

/** The commit loop of a two-phase-commit sink subtask, on a manual commit thread and a manual clock. */
class PendingCommitsTest {
    /** Runs what is due only when the test says so; delays are recorded, not waited for. */
    static final class ManualCommitThread implements PendingCommits.CommitThread {
        final Queue<Runnable> now = new ArrayDeque<>();
        final List<Long> scheduledDelays = new ArrayList<>();
        final Queue<Runnable> scheduled = new ArrayDeque<>();
        boolean shutDown;

        @Override
        public void execute(Runnable task) {
            now.add(task);
        }

        @Override
        public void schedule(Runnable task, long delayMillis) {
            scheduledDelays.add(delayMillis);
            scheduled.add(task);
        }

        @Override
        public void shutdownNow() {
            shutDown = true;
        }

        void runNow() {
            Runnable r;
            while ((r = now.poll()) != null) {
                r.run();
            }
        }

        void runNextRetry() {
            scheduled.remove().run();
        }
    }

    private final ManualClock clock = new ManualClock();
    private final ManualCommitThread thread = new ManualCommitThread();
    private final List<String> committed = new ArrayList<>();
    private int failuresLeft;

    private PendingCommits<String> commits() {
        return new PendingCommits<>("Sink: test (1/1)", c -> {
            if (failuresLeft > 0) {
                failuresLeft--;
                throw new java.io.IOException("broker unreachable");
            }
            committed.add(c);
        }, thread, clock);
    }

    @Test
    void commitsOnlyUpToTheCompletedCheckpointInOrder() {
        PendingCommits<String> commits = commits();
        commits.add(1, List.of("a", "b"));
        commits.add(2, List.of("c"));
        assertThat(commits.stats().pendingCommittables()).isEqualTo(3);

        commits.commitUpTo(1);
        thread.runNow();
        assertThat(committed).containsExactly("a", "b");
        assertThat(commits.snapshot()).extracting(PendingCommits.Entry::committable).containsExactly("c");

        commits.commitUpTo(1); // a repeated notification commits nothing again
        thread.runNow();
        commits.commitUpTo(2);
        thread.runNow();
        assertThat(committed).containsExactly("a", "b", "c");
        assertThat(commits.stats()).isEqualTo(new CommitStats(0, 0, 0, 3, null));
    }

    @Test
    void aFailedCommitIsRetriedWithGrowingBackoffAndShowsInTheStats() {
        PendingCommits<String> commits = commits();
        failuresLeft = 3;
        commits.add(7, List.of("x"));
        clock.advance(Duration.ofSeconds(2));
        commits.commitUpTo(7);
        thread.runNow();
        CommitStats failing = commits.stats();
        assertThat(failing.pendingCommittables()).isEqualTo(1);
        assertThat(failing.oldestPendingAgeMillis()).isEqualTo(2000);
        assertThat(failing.commitRetries()).isEqualTo(1);
        assertThat(failing.lastCommitError()).contains("checkpoint 7").contains("attempt 1").contains("broker unreachable")
                .contains("next retry in 100 ms");
        thread.runNextRetry();
        thread.runNextRetry();
        thread.runNextRetry();
        assertThat(thread.scheduledDelays).containsExactly(100L, 200L, 400L);
        assertThat(committed).containsExactly("x");
        assertThat(commits.stats()).isEqualTo(new CommitStats(0, 0, 3, 1, null));
    }

    @Test
    void backoffIsCappedAtTenSeconds() {
        assertThat(PendingCommits.COMMIT_RETRY.delayAfter(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(PendingCommits.COMMIT_RETRY.delayAfter(7)).isEqualTo(Duration.ofMillis(6400));
        assertThat(PendingCommits.COMMIT_RETRY.delayAfter(8)).isEqualTo(Duration.ofSeconds(10));
        assertThat(PendingCommits.COMMIT_RETRY.delayAfter(1000)).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void theLastErrorSaysTheNextDelayAsDurationsAreDescribed() {
        PendingCommits<String> commits = commits();
        failuresLeft = 5;
        commits.add(3, List.of("x"));
        commits.commitUpTo(3);
        thread.runNow();
        for (int i = 0; i < 4; i++) {
            thread.runNextRetry();
        }
        // the fifth failure: 100 ms x 2^4
        assertThat(commits.stats().lastCommitError()).contains("attempt 5").contains("next retry in 1.6 s");
        thread.runNextRetry();
        assertThat(committed).containsExactly("x");
    }

    @Test
    void aCommittableStaysInSnapshotsUntilItsCommitReturned() {
        PendingCommits<String> commits = commits();
        commits.add(1, List.of("a"));
        commits.commitUpTo(1); // queued on the commit thread, not run yet
        assertThat(commits.snapshot()).extracting(PendingCommits.Entry::checkpointId).containsExactly(1L);
        thread.runNow();
        assertThat(commits.snapshot()).isEmpty();
    }

    @Test
    void restoredCommittablesAreCommittedAtOnce() {
        PendingCommits<String> commits = commits();
        commits.restore(5, List.of(new PendingCommits.Entry<>(4, "old", 0), new PendingCommits.Entry<>(5, "new", 0)));
        thread.runNow();
        assertThat(committed).containsExactly("old", "new");
    }

    @Test
    void anUnrecoverableCommitErrorIsNotRetriedAndIsReported() {
        PendingCommits<String> commits = new PendingCommits<>("Sink: test (1/1)", c -> {
            throw new Unrecoverable("the output topic was deleted");
        }, thread, clock);
        commits.add(1, List.of("a"));
        commits.commitUpTo(1);
        thread.runNow();
        assertThat(thread.scheduled).isEmpty();
        assertThat(commits.fatalError()).hasMessageContaining("topic was deleted");
        assertThatThrownBy(commits::commitAllAndWait).hasMessageContaining("cannot be retried");
    }

    static final class Unrecoverable extends RuntimeException implements UnrecoverableJobException {
        Unrecoverable(String m) {
            super(m);
        }
    }
}
