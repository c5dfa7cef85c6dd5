package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;

/**
 * The job master exists, nothing is deployed yet. {@link #start()} takes the slots and deploys
 * ({@link Running}), or waits for slots ({@link WaitingForResources}, still CREATED).
 */
final class Created implements JobState {
    /** What {@link Created} may do. */
    interface Context {
        void listenToSlotPool();

        boolean tryAllocateSlots();

        void goToRunning();

        void goToWaitingForResources();

        void goToCancelling();

        void goToSuspended(String reason);
    }

    private final Context context;

    Created(Context context) {
        this.context = context;
    }

    @Override
    public JobStatus status() {
        return JobStatus.CREATED;
    }

    @Override
    public void start() {
        context.listenToSlotPool();
        if (context.tryAllocateSlots()) {
            context.goToRunning();
        } else {
            context.goToWaitingForResources();
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
