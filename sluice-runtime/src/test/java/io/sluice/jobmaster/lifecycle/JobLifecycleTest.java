package io.sluice.jobmaster.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static java.util.Map.entry;

import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The job lifecycle's state machine on its own: a manually triggered main thread on a {@link
 * ManualClock}, and {@link TestingJobActions} answering for the job master's parts. Every legal
 * transition of {@link JobTransitions} is driven by the event that makes it; illegal, stale and
 * re-entrant transitions are refused with a message that says which.
 */
class JobLifecycleTest {
    private static final JobId JOB = JobId.of("0123456789abcdef0123456789abcdef");
    private static final Duration DELAY = Duration.ofSeconds(1);

    /** The diagram, as the test expects it: a change to {@link JobTransitions} must change this too. */
    private static final Map<String, Set<String>> DIAGRAM = Map.ofEntries(
            entry("Created", Set.of("Running", "WaitingForResources", "Cancelling", "Suspended")),
            entry("WaitingForResources", Set.of("Running", "Cancelling", "Suspended")),
            entry("Running", Set.of("Restarting", "Failing", "Finished", "Cancelling", "Suspended")),
            entry("Restarting", Set.of("FallingBack", "Running", "WaitingForResources", "Cancelling", "Suspended")),
            entry("FallingBack", Set.of("Running", "WaitingForResources", "Cancelling", "Suspended")),
            entry("Failing", Set.of("Failed", "Cancelling", "Suspended")),
            entry("Cancelling", Set.of("Canceled", "Suspended")),
            entry("Suspended", Set.of()),
            entry("Finished", Set.of()),
            entry("Failed", Set.of()),
            entry("Canceled", Set.of()));

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor mainThread =
            new ManuallyTriggeredMainThreadExecutor("lifecycle-test", clock);
    private final TestingJobActions actions = new TestingJobActions();
    private final List<JobStatus> statusChanges = new ArrayList<>();
    /** Told of each status change after it is recorded; replaceable by a test. */
    private Consumer<JobStatus> listener = statusChanges::add;
    private final JobLifecycle lifecycle =
            new JobLifecycle(JOB, "lifecycle-test", mainThread, clock, actions, s -> listener.accept(s));

    @Test
    void theTableIsTheDiagram() {
        Map<String, Set<String>> table = new java.util.HashMap<>();
        for (Class<? extends JobState> state : JobTransitions.states()) {
            Set<String> next = new TreeSet<>();
            JobTransitions.legalAfter(state).forEach(c -> next.add(c.getSimpleName()));
            table.put(state.getSimpleName(), next);
        }
        assertThat(table).isEqualTo(DIAGRAM);
        assertThat(JobState.class.getPermittedSubclasses()).as("every state class is in the table")
                .allSatisfy(c -> assertThat(c == Ended.class || table.containsKey(c.getSimpleName())).isTrue());
        assertThat(Ended.class.getPermittedSubclasses()).extracting(Class::getSimpleName)
                .allSatisfy(name -> assertThat(table).containsKey(name));
    }

    static Stream<Arguments> legalTransitions() {
        return DIAGRAM.entrySet().stream().flatMap(e -> e.getValue().stream().map(to -> Arguments.of(e.getKey(), to)));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("legalTransitions")
    void everyLegalTransitionIsMadeByItsEvent(String from, String to) {
        reach(from);
        List<JobStatusTransition> before = onMain(lifecycle::transitions);
        JobStatus statusBefore = lifecycle.status();

        move(from, to);

        assertThat(onMain(lifecycle::stateName)).isEqualTo(to);
        List<JobStatusTransition> after = onMain(lifecycle::transitions);
        if (lifecycle.status() == statusBefore) {
            assertThat(after).as("no status change, nothing recorded").isEqualTo(before);
        } else {
            assertThat(after).hasSize(before.size() + 1);
            assertThat(after.get(after.size() - 1))
                    .isEqualTo(new JobStatusTransition(lifecycle.status(), clock.currentTimeMillis()));
            assertThat(statusChanges.get(statusChanges.size() - 1)).isEqualTo(lifecycle.status());
        }
    }

    @Test
    void anIllegalTransitionIsRefusedWithTheStatesAndWhatIsAllowed() {
        JobState created = lifecycle.current();

        assertThatThrownBy(() -> onMain(() -> lifecycle.transition(created, lifecycle.newState(Failed::new))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Refused illegal transition Created -> Failed of job " + JOB + " (lifecycle-test); from"
                        + " Created the job may go to Cancelling, Running, Suspended, WaitingForResources");

        assertThat(onMain(lifecycle::stateName)).isEqualTo("Created");
        assertThat(onMain(lifecycle::transitions)).extracting(JobStatusTransition::status)
                .containsExactly(JobStatus.CREATED);
        assertThat(statusChanges).isEmpty();
        assertThat(actions.calls).as("nothing was done for it").isEmpty();
    }

    @Test
    void aTransitionFromAStateThatIsNoLongerCurrentIsRefused() {
        reach("Restarting");
        JobState restarting = lifecycle.current();
        onMain(lifecycle::cancel);

        assertThatThrownBy(() -> onMain(() -> lifecycle.transition(restarting, lifecycle.newState(Running::new))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Refused transition Restarting -> Running of job " + JOB + " (lifecycle-test): Restarting"
                        + " is no longer the current state (Cancelling is)");
        assertThat(onMain(lifecycle::stateName)).isEqualTo("Cancelling");
    }

    @Test
    void aTransitionStartedWhileAnotherIsInProgressIsRefused() {
        actions.slotsAvailable = true;
        listener = status -> {
            statusChanges.add(status);
            if (status == JobStatus.RUNNING) {
                lifecycle.cancel(); // from inside the transition Created -> Running
            }
        };

        assertThatThrownBy(() -> onMain(lifecycle::start))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Refused re-entrant transition Running -> Cancelling of job " + JOB + " (lifecycle-test):"
                        + " the transition Created -> Running is still in progress (a state's onLeave or a status"
                        + " listener must not change the job's state)");
        assertThat(statusChanges).containsExactly(JobStatus.RUNNING);

        listener = statusChanges::add;
        onMain(lifecycle::cancel);
        assertThat(onMain(lifecycle::stateName)).as("the refused transition left nothing half done")
                .isEqualTo("Canceled");
    }

    @Test
    void eventsAreAcceptedOnTheMainThreadOnly() {
        assertThatThrownBy(lifecycle::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("must run on the main thread of lifecycle-test");
        assertThat(actions.calls).isEmpty();
    }

    @Test
    void aRestartDueAfterTheStateWasLeftDoesNothing() {
        reach("Restarting");
        actions.tasksEnded = true;
        onMain(lifecycle::taskEnded);
        assertThat(mainThread.numScheduled()).as("the restart").isEqualTo(1);
        actions.tasksEnded = false;

        onMain(lifecycle::cancel);

        assertThat(mainThread.numScheduled()).as("cancelled on leaving Restarting").isZero();
        mainThread.advanceTime(DELAY.multipliedBy(10));
        assertThat(onMain(lifecycle::stateName)).isEqualTo("Cancelling");
        assertThat(actions.calls).as("no second deployment").containsOnlyOnce("deployAll")
                .doesNotContain("tryAllocateSlots RESTARTING");
    }

    @Test
    void aFallBackCallbackAfterTheStateWasLeftDoesNothing() {
        reach("FallingBack");
        onMain(() -> lifecycle.suspend("leadership lost"));

        onMain(() -> actions.retryAfter.accept(Duration.ZERO));
        onMain(() -> actions.waitForRepairedState.accept("no usable checkpoint", DELAY));

        assertThat(onMain(lifecycle::stateName)).isEqualTo("Suspended");
        assertThat(mainThread.numScheduled()).isZero();
        assertThat(actions.calls).filteredOn(c -> c.startsWith("readyToDeploy")).hasSize(1);
    }

    @Test
    void waitingForRepairedStateRetriesAfterTheDelayItWasGiven() {
        reach("FallingBack");
        onMain(() -> actions.waitForRepairedState.accept("no usable checkpoint", Duration.ofMinutes(1)));
        assertThat(actions.calls).contains("waitingForRepairedState no usable checkpoint");
        actions.readyToDeploy = true;

        mainThread.advanceTime(Duration.ofMinutes(1).minusMillis(1));
        assertThat(onMain(lifecycle::stateName)).isEqualTo("FallingBack");
        mainThread.advanceTime(Duration.ofMillis(1));

        assertThat(onMain(lifecycle::stateName)).isEqualTo("Running");
        assertThat(lifecycle.status()).isEqualTo(JobStatus.RUNNING);
    }

    // ------------------------------------------------------------------ driving

    /** Drives a fresh lifecycle from Created to {@code state} by events, as the job master would. */
    private void reach(String state) {
        switch (state) {
            case "Created" -> { }
            case "WaitingForResources" -> move("Created", "WaitingForResources");
            case "Running" -> move("Created", "Running");
            case "Restarting", "Failing", "Cancelling", "Finished" -> {
                reach("Running");
                move("Running", state);
            }
            case "FallingBack" -> {
                reach("Restarting");
                move("Restarting", "FallingBack");
            }
            case "Failed" -> {
                reach("Failing");
                move("Failing", "Failed");
            }
            case "Canceled" -> {
                reach("Cancelling");
                move("Cancelling", "Canceled");
            }
            case "Suspended" -> move("Created", "Suspended");
            default -> throw new AssertionError("No way to " + state);
        }
        assertThat(onMain(lifecycle::stateName)).isEqualTo(state);
    }

    /** Makes the transition {@code from -> to} happen by the event that causes it. */
    private void move(String from, String to) {
        switch (to) {
            case "Cancelling" -> {
                actions.tasksEnded = false;
                onMain(lifecycle::cancel);
            }
            case "Suspended" -> {
                actions.tasksEnded = false;
                onMain(() -> lifecycle.suspend("leadership lost"));
            }
            case "Canceled", "Failed" -> {
                actions.tasksEnded = true;
                onMain(lifecycle::taskEnded);
            }
            case "Finished" -> {
                actions.tasksFinished = true;
                onMain(lifecycle::taskFinished);
            }
            case "Restarting", "Failing" -> {
                actions.tasksEnded = false;
                actions.decision = to.equals("Restarting") ? FailoverDecision.RESTART : FailoverDecision.FAIL;
                onMain(() -> lifecycle.taskFailed(TaskFailure.ofTask(new RuntimeException("boom"), "map", -1)));
            }
            case "FallingBack" -> restartDue(true, true);
            case "Running", "WaitingForResources" -> deployOrWait(from, to.equals("Running"));
            default -> throw new AssertionError("No event for " + from + " -> " + to);
        }
    }

    /** The events that end in Running (slots available) or WaitingForResources (not). */
    private void deployOrWait(String from, boolean slots) {
        actions.slotsAvailable = slots;
        switch (from) {
            case "Created" -> onMain(lifecycle::start);
            case "WaitingForResources" -> onMain(lifecycle::slotsAdded);
            case "Restarting" -> restartDue(false, true);
            case "FallingBack" -> {
                actions.readyToDeploy = true;
                onMain(() -> actions.retryAfter.accept(Duration.ZERO));
            }
            default -> throw new AssertionError("No way from " + from + " to a deployment");
        }
    }

    /** Every task ended while Restarting, and the restart delay passes. */
    private void restartDue(boolean fallback, boolean staysFallingBack) {
        actions.fallbackInProgress = fallback;
        actions.readyToDeploy = !staysFallingBack;
        actions.tasksEnded = true;
        onMain(lifecycle::taskEnded);
        mainThread.advanceTime(DELAY);
    }

    private void onMain(Runnable r) {
        onMain(() -> {
            r.run();
            return null;
        });
    }

    private <T> T onMain(Supplier<T> fn) {
        AtomicReference<T> result = new AtomicReference<>();
        mainThread.execute(() -> result.set(fn.get()));
        mainThread.triggerAll();
        return result.get();
    }
}
