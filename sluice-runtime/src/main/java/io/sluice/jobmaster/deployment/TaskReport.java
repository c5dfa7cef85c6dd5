package io.sluice.jobmaster.deployment;

/**
 * What a task's state report changed in the current {@link DeploymentRound}.
 *
 * @param execution        the reporting task's execution, with its new state
 * @param before           its state before the report
 * @param wasRestoring     it may still have been reading its restore checkpoint before the report
 * @param stoppedRestoring the report ended its restore (it runs, or it ended)
 * @param allRestored      with this report every task of the round runs or has finished, and none restores
 *                         any more: the round's restore succeeded
 */
public record TaskReport(Execution execution, io.sluice.job.ExecutionState before, boolean wasRestoring,
                         boolean stoppedRestoring, boolean allRestored) {
}
