package io.sluice.restart;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.util.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CrashLoopDetectorTest {
    private static final String JOB = "0123456789abcdef0123456789abcdef";
    private final ManualClock clock = new ManualClock(1_780_000_000_000L);
    private final CrashLoopDetector detector = new CrashLoopDetector(clock, JOB);

    private static CrashLoopDetector.Failure processing(String message) {
        return new CrashLoopDetector.Failure("java.lang.IllegalStateException", message, "count -> sink at Counter.map",
                -1, false);
    }

    private static CrashLoopDetector.Failure restoring(long checkpoint, String message, boolean transientCause) {
        return new CrashLoopDetector.Failure("java.lang.IllegalStateException", message, "count at KeyedSnapshotReader.read",
                checkpoint, transientCause);
    }

    @Test
    void theSameErrorThreeTimesInARowIsACrashLoopWithItsCountAndFirstTime() {
        long first = clock.currentTimeMillis();
        detector.record(processing("attempt 1 failed on record 17"));
        clock.advance(Duration.ofSeconds(1));
        detector.record(processing("attempt 2 failed on record 17"));
        assertThat(detector.current()).as("two in a row are not a loop yet").isNull();
        clock.advance(Duration.ofSeconds(2));
        detector.record(processing("attempt 3 failed on record 17"));

        CrashLoop loop = detector.current();
        assertThat(loop).isNotNull();
        assertThat(loop.count()).isEqualTo(3);
        assertThat(loop.sinceMillis()).isEqualTo(first);
        assertThat(loop.lastMillis()).isEqualTo(first + 3_000);
        assertThat(loop.kind()).isEqualTo(CrashLoop.Kind.PROCESSING);
        assertThat(loop.restoreCheckpointId()).isEqualTo(-1);
        assertThat(loop.cause()).isEqualTo("java.lang.IllegalStateException: attempt 3 failed on record 17");
        assertThat(loop.summary()).isEqualTo("crash loop: the same error 3 times since " + Instant.ofEpochMilli(first)
                + ": java.lang.IllegalStateException: attempt 3 failed on record 17");
        assertThat(loop.advice()).contains("--restore-from latest:" + JOB);
        detector.record(processing("attempt 4 failed on record 17"));
        assertThat(detector.current().count()).isEqualTo(4);
    }

    @Test
    void idsAndNumbersDoNotMakeADifferentErrorButAnotherClassMessageOrOriginDoes() {
        assertThat(CrashLoopDetector.shape("class C cannot be cast to class C (C is in loader 'job-0c27ab12ff'; C is in"
                + " loader 'job-a5429e01cd') 3f2504e0-4f89-11d3-9a0c-0305e82c3301"))
                .isEqualTo("class C cannot be cast to class C (C is in loader 'job-<id>'; C is in loader 'job-<id>') <id>");
        assertThat(CrashLoopDetector.shape("key group 4 but belongs to key group 124"))
                .isEqualTo(CrashLoopDetector.shape("key group 17 but belongs to key group 3"));

        detector.record(processing("boom 1"));
        detector.record(processing("boom 2"));
        detector.record(new CrashLoopDetector.Failure("java.lang.RuntimeException", "boom 3", "count -> sink at Counter.map",
                -1, false));
        assertThat(detector.current()).as("another exception class starts a new run").isNull();
        detector.record(new CrashLoopDetector.Failure("java.lang.RuntimeException", "boom 4", "other at Other.map", -1, false));
        detector.record(new CrashLoopDetector.Failure("java.lang.RuntimeException", "boom 5", "other at Other.map", -1, false));
        assertThat(detector.current()).as("another origin started a new run, of two").isNull();
        detector.record(new CrashLoopDetector.Failure("java.lang.RuntimeException", "bang", "other at Other.map", -1, false));
        assertThat(detector.current()).as("another message shape").isNull();
    }

    @Test
    void aRestoreFailingTheSameDeterministicWayFromTheSameCheckpointCanNeverSucceed() {
        for (int i = 0; i < 3; i++) {
            detector.record(restoring(7, "key k1 was written in key group 4 but belongs to key group 124 here", false));
            clock.advance(Duration.ofSeconds(4));
        }
        CrashLoop loop = detector.current();
        assertThat(loop.kind()).isEqualTo(CrashLoop.Kind.RESTORE_NEVER_SUCCEEDS);
        assertThat(loop.restoreNeverSucceeds()).isTrue();
        assertThat(loop.restoreCheckpointId()).isEqualTo(7);
        assertThat(loop.summary()).contains("the same error 3 times since")
                .contains("restore from checkpoint 7 can never succeed: java.lang.IllegalStateException: key k1");
        assertThat(loop.advice()).contains("Cancel the job and run a fixed jar with --restore-from latest:" + JOB)
                .contains("keeps all its checkpoints");
    }

    @Test
    void theSameDeterministicRestoreFailureFromAnOlderThenTheNewestCheckpointCanNeverSucceedEither() {
        // The first restart took checkpoint 7 while 8 was still being finalized; every later one takes 8.
        detector.record(restoring(7, "state of format 1 cannot be read", false));
        detector.record(restoring(8, "state of format 1 cannot be read", false));
        detector.record(restoring(8, "state of format 1 cannot be read", false));
        CrashLoop loop = detector.current();
        assertThat(loop.kind()).isEqualTo(CrashLoop.Kind.RESTORE_NEVER_SUCCEEDS);
        assertThat(loop.restoreCheckpointId()).as("the latest attempt's").isEqualTo(8);
    }

    @Test
    void aTransientRestoreFailureIsNotClassifiedAsNeverSucceeding() {
        for (int i = 0; i < 3; i++) {
            detector.record(restoring(7, "could not read state file chk-7/3.state", true));
        }
        assertThat(detector.current().kind()).isEqualTo(CrashLoop.Kind.RESTORE);
        assertThat(detector.current().advice()).contains("transient");

        CrashLoopDetector other = new CrashLoopDetector(clock, JOB);
        other.record(restoring(7, "cannot decode", false));
        other.record(restoring(8, "cannot decode", true));
        other.record(restoring(8, "cannot decode", false));
        assertThat(other.current().kind()).as("one of them looked transient").isEqualTo(CrashLoop.Kind.RESTORE);

        CrashLoopDetector mixed = new CrashLoopDetector(clock, JOB);
        mixed.record(restoring(7, "cannot decode", false));
        mixed.record(processing("cannot decode"));
        mixed.record(processing("cannot decode"));
        assertThat(mixed.current()).as("restoring and processing are different failures").isNull();
    }

    @Test
    void aRestoreFailingTheSameWayFromEveryRetainedCheckpointNamesNoSingleCheckpoint() {
        for (int i = 0; i < 3; i++) {
            detector.record(new CrashLoopDetector.Failure("io.sluice.ha.CheckpointRecoveryException",
                    "None of the 2 retained checkpoints could be read (chk-2: corrupt, chk-1: corrupt)", null, -1, false,
                    true));
        }
        CrashLoop loop = detector.current();
        assertThat(loop.kind()).isEqualTo(CrashLoop.Kind.RESTORE_NEVER_SUCCEEDS);
        assertThat(loop.restoreCheckpointId()).isEqualTo(-1);
        assertThat(loop.summary()).contains("restore from any retained checkpoint can never succeed");
        assertThat(loop.advice()).startsWith("Restore from any retained checkpoint can never succeed");
    }

    @Test
    void aLongQuietSpellEndsTheLoopAndStartsANewRun() {
        for (int i = 0; i < 3; i++) {
            detector.record(processing("boom"));
        }
        clock.advance(CrashLoopDetector.RESET_AFTER.minusMillis(1));
        assertThat(detector.current()).isNotNull();
        clock.advance(Duration.ofMillis(2));
        assertThat(detector.current()).as("no failure for 10 minutes: the job runs").isNull();
        detector.record(processing("boom"));
        detector.record(processing("boom"));
        assertThat(detector.current()).as("a new run of two").isNull();
        detector.record(processing("boom"));
        assertThat(detector.current().count()).isEqualTo(3);
    }
}
