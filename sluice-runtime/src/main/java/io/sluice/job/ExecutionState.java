package io.sluice.job;

/** The state of one task attempt. */
public enum ExecutionState {
    DEPLOYING, RUNNING, FINISHED, CANCELING, CANCELED, FAILED;

    public boolean isTerminal() {
        return this == FINISHED || this == CANCELED || this == FAILED;
    }
}
