package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;

/**
 * Too few slots in the dynamic pool for the next deployment: the job waits, without consuming its
 * restart budget, in the status it came with (CREATED before the first deployment, RESTARTING
 * after a failure), and tries again whenever slots are added.
 */
final class WaitingForResources implements JobState {
    /** What {@link WaitingForResources} may do. */
    interface Context {
        boolean tryAllocateSlots();

        void goToRunning();

        void goToCancelling();

        void goToSuspended(String reason);
    }

    private final Context context;
    private final JobStatus shownAs;

    /** @param shownAs the status the job keeps while it waits: CREATED or RESTARTING */
    WaitingForResources(Context context, JobStatus shownAs) {
        if (shownAs != JobStatus.CREATED && shownAs != JobStatus.RESTARTING) {
            throw new IllegalArgumentException("A job waits for slots while CREATED or RESTARTING, not " + shownAs);
        }
        this.context = context;
        this.shownAs = shownAs;
    }

    @Override
    public JobStatus status() {
        return shownAs;
    }

    @Override
    public void onSlotsAdded() {
        if (context.tryAllocateSlots()) {
            context.goToRunning();
        }
    }

    @Override
    public void cancel() {
        context.goToCancelling();
    }

    @Override
    public void suspend(String reason) {
        context.goToSuspended(reason);
    }
}
