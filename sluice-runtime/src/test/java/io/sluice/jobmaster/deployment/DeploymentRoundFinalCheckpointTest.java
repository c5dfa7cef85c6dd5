package io.sluice.jobmaster.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.graph.JobId;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.testutil.TestingTaskExecutorGateway;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a deployment round tells the checkpoint coordinator about tasks awaiting their final checkpoint. */
class DeploymentRoundFinalCheckpointTest {
    private final JobId job = JobId.of("0123456789abcdef0123456789abcdef");
    private final TestingTaskExecutorGateway taskExecutor = new TestingTaskExecutorGateway("te-1", 4);
    private final ExecutionAttemptId source0 = new ExecutionAttemptId(job, 1, 0, 1);
    private final ExecutionAttemptId source1 = new ExecutionAttemptId(job, 1, 1, 1);
    private final ExecutionAttemptId sink0 = new ExecutionAttemptId(job, 2, 0, 1);
    private final ExecutionAttemptId sink1 = new ExecutionAttemptId(job, 2, 1, 1);
    private final DeploymentRound round = new DeploymentRound(1, -1);

    DeploymentRoundFinalCheckpointTest() {
        for (ExecutionAttemptId id : List.of(source0, source1, sink0, sink1)) {
            round.add(new Execution(id, taskExecutor, id.vertexId() == 1, false));
            round.apply(new TaskExecutionState(id, ExecutionState.RUNNING, null));
        }
    }

    @Test
    void aTaskAwaitingItsFinalCheckpointIsTriggeredDirectlyAndKeepsCheckpointsGoingAfterEverySourceFinished() {
        round.apply(new TaskExecutionState(source0, ExecutionState.FINISHED, null));
        round.apply(new TaskExecutionState(sink0, ExecutionState.RUNNING, null, true));
        assertThat(round.awaitingFinalCheckpoint()).containsExactly(sink0);
        assertThat(round.runningSources()).containsExactly(source1);
        assertThat(round.notFinished()).containsExactly(source1, sink0, sink1);

        round.apply(new TaskExecutionState(source1, ExecutionState.FINISHED, null));
        assertThat(round.runningSources()).isEmpty();
        assertThat(round.readyForCheckpoint()).as("sink 0 awaits its final checkpoint").isTrue();

        round.apply(new TaskExecutionState(sink0, ExecutionState.FINISHED, null));
        assertThat(round.awaitingFinalCheckpoint()).isEmpty();
        assertThat(round.readyForCheckpoint()).as("no source runs and no task awaits").isFalse();

        round.apply(new TaskExecutionState(sink1, ExecutionState.RUNNING, null, true));
        assertThat(round.readyForCheckpoint()).isTrue();
        assertThat(round.awaitingFinalCheckpoint()).containsExactly(sink1);
    }

    @Test
    void aTaskBeingCancelledThatReportsItAwaitsItsFinalCheckpointStaysCanceling() {
        round.cancelAll();

        assertThat(round.apply(new TaskExecutionState(sink0, ExecutionState.RUNNING, null, true))).isNull();

        assertThat(round.get(sink0).state()).isEqualTo(ExecutionState.CANCELING);
        assertThat(round.awaitingFinalCheckpoint()).isEmpty();
        TaskReport canceled = round.apply(new TaskExecutionState(sink0, ExecutionState.CANCELED, null));
        assertThat(canceled.before()).as("the job master asked for this cancel").isEqualTo(ExecutionState.CANCELING);
    }
}
