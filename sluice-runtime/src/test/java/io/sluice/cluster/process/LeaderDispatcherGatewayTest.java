package io.sluice.cluster.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.cluster.membership.HeartbeatResponse;
import io.sluice.cluster.membership.JobManagerSession;
import io.sluice.cluster.membership.RegistrationResponse;
import io.sluice.cluster.membership.TaskExecutorRegistration;
import io.sluice.cluster.membership.TaskExecutorRegistryGateway;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.JobSummary;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.rpc.Acknowledge;
import io.sluice.rpc.remote.FencingTokenMismatchException;
import io.sluice.protocol.TaskExecutorGateway;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A standby's forwarding to the leader's Dispatcher under the leader session: asked once and kept,
 * asked again once when a call is refused for it, and a clear error once the job manager no longer
 * leads. The leader's side is simulated in memory (futures complete at once), the way its fenced
 * endpoint would answer.
 */
class LeaderDispatcherGatewayTest {
    private final AtomicReference<UUID> leaderSession = new AtomicReference<>(UUID.randomUUID());
    private final AtomicInteger sessionQuestions = new AtomicInteger();
    private final List<UUID> callsUnder = new CopyOnWriteArrayList<>();

    private final TaskExecutorRegistryGateway sessions = new TaskExecutorRegistryGateway() {
        @Override
        public CompletableFuture<JobManagerSession> leaderSession() {
            sessionQuestions.incrementAndGet();
            UUID s = leaderSession.get();
            return CompletableFuture.completedFuture(s == null
                    ? new JobManagerSession("jm-1", false, null, "job manager jm-1 is a standby; the leader is jm-3")
                    : new JobManagerSession("jm-1", true, s, "leads"));
        }

        @Override
        public CompletableFuture<RegistrationResponse> registerTaskExecutor(TaskExecutorRegistration r, TaskExecutorGateway te) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<HeartbeatResponse> heartbeatFromTaskExecutor(String id, UUID registrationId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void disconnectTaskExecutor(String id, UUID registrationId, String reason) {
        }
    };

    /** The leader's Dispatcher as a fenced endpoint answers a proxy speaking {@code token}. */
    private DispatcherGateway fenced(UUID token) {
        return new DispatcherGateway() {
            private <T> CompletableFuture<T> call(T answer) {
                callsUnder.add(token);
                UUID current = leaderSession.get();
                if (current == null || !current.equals(token)) {
                    return CompletableFuture.failedFuture(new FencingTokenMismatchException("Endpoint 'dispatcher' refuses"
                            + " a call made for leader session " + token + ", current " + current, token, current));
                }
                return CompletableFuture.completedFuture(answer);
            }

            @Override public CompletableFuture<JobId> submitJob(JobGraph jobGraph) { return call(jobGraph.jobId()); }
            @Override public CompletableFuture<List<JobSummary>> listJobs() { return call(List.of()); }
            @Override public CompletableFuture<JobDetails> requestJobDetails(JobId jobId) { return call(null); }
            @Override public CompletableFuture<Acknowledge> cancelJob(JobId jobId) { return call(Acknowledge.INSTANCE); }
            @Override public CompletableFuture<JobResult> requestJobResult(JobId jobId) { return call(null); }
        };
    }

    private final LeaderDispatcherGateway gateway = new LeaderDispatcherGateway("jm-1", sessions, this::fenced);

    @Test
    void asksForTheSessionOnceAndCallsUnderIt() {
        UUID s = leaderSession.get();
        assertThat(gateway.listJobs().join()).isEmpty();
        assertThat(gateway.cancelJob(JobId.generate()).join()).isEqualTo(Acknowledge.INSTANCE);
        assertThat(sessionQuestions).hasValue(1);
        assertThat(callsUnder).containsExactly(s, s);
    }

    @Test
    void aCallRefusedForItsSessionIsMadeOnceMoreUnderTheCurrentOne() {
        UUID old = leaderSession.get();
        gateway.listJobs().join();
        UUID renewed = UUID.randomUUID();
        leaderSession.set(renewed); // the leader lost and regained its leadership

        assertThat(gateway.listJobs().join()).isEmpty();
        assertThat(callsUnder).containsExactly(old, old, renewed);
        assertThat(sessionQuestions).hasValue(2);
    }

    @Test
    void aJobManagerThatNoLongerLeadsFailsTheCallSayingSo() {
        gateway.listJobs().join();
        leaderSession.set(null);

        assertThatThrownBy(() -> gateway.listJobs().join()).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(NoLongerLeaderException.class)
                .hasMessageContaining("jm-1 no longer leads").hasMessageContaining("the leader is jm-3");

        leaderSession.set(UUID.randomUUID()); // it leads again: the next call asks again
        assertThat(gateway.listJobs().join()).isEmpty();
    }
}
