package io.sluice.jobmaster.lifecycle;

import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle of one job under its job master: the current {@link JobState}, the events the job
 * master hands to it, and the one method every transition goes through ({@link #transition}).
 *
 * <p>The transition method logs {@code from -> to}, and refuses, with an {@link
 * IllegalStateException} saying which job, which states and what is allowed: a transition the
 * lifecycle's diagram does not have ({@link JobTransitions}); one from a state that is no longer
 * the current one (a late callback of a state already left); and one started while another is in
 * progress (from a state's {@code onLeave}, or from a status listener). It records every status
 * change with its wall-clock time ({@link #transitions()}) and tells the status listener. A state
 * may move on from its {@code onEnter}: that is a new transition, after the one that entered it.
 *
 * <p>Threading: the job master's main thread, checked at every entry point; {@link #status()} from
 * any thread.
 */
public final class JobLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(JobLifecycle.class);

    private final JobId jobId;
    private final String jobName;
    private final MainThreadExecutor mainThread;
    private final Clock clock;
    private final JobActions actions;
    private final Consumer<JobStatus> statusListener;
    private final List<JobStatusTransition> transitions = new ArrayList<>();
    /** The first transition (CREATED, when this lifecycle was made). */
    private final JobStatusTransition created;
    private JobState state;
    /** The current state's status; volatile for readers on other threads (health). */
    private volatile JobStatus status;
    /** The transition in progress ("Created -> Running"), or {@code null}. */
    private String transitionInProgress;

    /**
     * Starts in {@link Created}, recorded at the clock's time.
     *
     * @param statusListener told of every status change, on the main thread, inside the transition:
     *                       it must not block, nor change the job's state
     */
    public JobLifecycle(JobId jobId, String jobName, MainThreadExecutor mainThread, Clock clock, JobActions actions,
                        Consumer<JobStatus> statusListener) {
        this.jobId = jobId;
        this.jobName = jobName;
        this.mainThread = mainThread;
        this.clock = clock;
        this.actions = actions;
        this.statusListener = statusListener;
        this.state = newState(Created::new);
        this.status = state.status();
        this.created = new JobStatusTransition(status, clock.currentTimeMillis());
        transitions.add(created);
    }

    // ---------------------------------------------------------------- events

    /** The job master starts: deploys, or waits for slots. */
    public void start() {
        mainThread.assertRunningInMainThread();
        state.start();
    }

    /** The job is cancelled; no-op once it is being cancelled or has ended. */
    public void cancel() {
        mainThread.assertRunningInMainThread();
        state.cancel();
    }

    /** Leadership is lost: SUSPENDED at once; no-op once the job has ended under this job master. */
    public void suspend(String reason) {
        mainThread.assertRunningInMainThread();
        state.suspend(reason);
    }

    /** A task of the current round failed: a running job fails over; otherwise it counts as ended. */
    public void taskFailed(TaskFailure failure) {
        mainThread.assertRunningInMainThread();
        state.onTaskFailed(failure);
    }

    /** A task of the current round finished. */
    public void taskFinished() {
        mainThread.assertRunningInMainThread();
        state.onTaskFinished();
    }

    /** A task of the current round was cancelled as asked. */
    public void taskEnded() {
        mainThread.assertRunningInMainThread();
        state.onTaskEnded();
    }

    /** The job failed as a whole (too many checkpoint failures): a running job fails over. */
    public void globalFailure(Throwable cause) {
        mainThread.assertRunningInMainThread();
        state.onGlobalFailure(cause);
    }

    /** The dynamic pool got slots: a job waiting for them tries again. */
    public void slotsAdded() {
        mainThread.assertRunningInMainThread();
        state.onSlotsAdded();
    }

    // ---------------------------------------------------------------- queries

    /** The current status. Any thread. */
    public JobStatus status() {
        return status;
    }

    /** The current state's name ("Restarting"), for logs and tests. */
    public String stateName() {
        mainThread.assertRunningInMainThread();
        return state.name();
    }

    /** The first transition (CREATED, when this lifecycle was made). Any thread. */
    public JobStatusTransition created() {
        return created;
    }

    /** Every status change under this job master with its wall-clock time, oldest first (CREATED first). */
    public List<JobStatusTransition> transitions() {
        mainThread.assertRunningInMainThread();
        return List.copyOf(transitions);
    }

    // ---------------------------------------------------------------- for the states

    /** A new state with a context of its own. */
    <S extends JobState> S newState(Function<JobStateContext, S> factory) {
        JobStateContext context = new JobStateContext(this, actions);
        S created = factory.apply(context);
        context.bind(created);
        return created;
    }

    JobState current() {
        return state;
    }

    boolean isCurrent(JobState candidate) {
        mainThread.assertRunningInMainThread();
        return state == candidate;
    }

    /** Runs {@code action} after {@code delay} on the main thread, if {@code owner} is still the current state then. */
    MainThreadExecutor.ScheduledTask runIfCurrent(JobState owner, Runnable action, Duration delay) {
        mainThread.assertRunningInMainThread();
        return mainThread.schedule(() -> {
            if (state == owner) {
                action.run();
            }
        }, delay);
    }

    /** "job <id> (<name>)", for messages. */
    String jobLabel() {
        return "job " + jobId + " (" + jobName + ")";
    }

    /** The one transition method: see the class comment. */
    void transition(JobState from, JobState to) {
        mainThread.assertRunningInMainThread();
        String move = from.name() + " -> " + to.name();
        if (transitionInProgress != null) {
            throw new IllegalStateException("Refused re-entrant transition " + move + " of " + jobLabel()
                    + ": the transition " + transitionInProgress + " is still in progress (a state's onLeave or a"
                    + " status listener must not change the job's state)");
        }
        if (from != state) {
            throw new IllegalStateException("Refused transition " + move + " of " + jobLabel() + ": " + from.name()
                    + " is no longer the current state (" + state.name() + " is)");
        }
        if (!JobTransitions.isLegal(from, to)) {
            throw new IllegalStateException("Refused illegal transition " + move + " of " + jobLabel() + "; from "
                    + from.name() + " the job may go to " + JobTransitions.describeLegalAfter(from.getClass()));
        }
        transitionInProgress = move;
        try {
            LOG.info("Job {} ({}): {} -> {} (status {} -> {})", jobId, jobName, from.name(), to.name(), from.status(),
                    to.status());
            from.onLeave();
            state = to;
            if (to.status() != from.status()) {
                status = to.status();
                transitions.add(new JobStatusTransition(status, clock.currentTimeMillis()));
                statusListener.accept(status);
            }
        } finally {
            transitionInProgress = null;
        }
        to.onEnter();
    }
}
