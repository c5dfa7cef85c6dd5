package io.sluice.jobmaster.runner;

/**
 * The table of the runner's legal transitions ({@link JobManagerRunner#transition} refuses any
 * other). Closing is allowed from every state but {@link Closed}; nothing leaves {@link Closed}
 * or {@link Ended} but closing.
 */
final class RunnerTransitions {
    private RunnerTransitions() {}

    static boolean allowed(RunnerState from, RunnerState to) {
        if (to instanceof Closed) {
            return !(from instanceof Closed);
        }
        if (from instanceof NotLeading) {
            return to instanceof Recovering;
        }
        if (from instanceof Recovering) {
            return to instanceof NotLeading || to instanceof Leading || to instanceof Ending || to instanceof Ended;
        }
        if (from instanceof Leading) {
            return to instanceof Suspending || to instanceof Recovering || to instanceof NotLeading
                    || to instanceof Ending;
        }
        if (from instanceof Suspending) {
            return to instanceof NotLeading || to instanceof Ending;
        }
        if (from instanceof Ending) {
            return to instanceof Ended;
        }
        return false; // Ended, Closed
    }
}
