package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.cluster.LocalCluster;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointRecoveryFactory;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.JobGraphStore;
import io.sluice.ha.JobResultStore;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.memory.InMemoryHaServices;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Right after a job manager starts, while the stored jobs are still being listed and their graphs
 * read (here: blocked on purpose), status, listing and cancel are answered at once, and stored jobs
 * are reported as INITIALIZING rather than unknown.
 */
class DispatcherResponsivenessITCase {

    @Test
    void answersPromptlyWhileStoredJobsAreStillBeingRecovered() throws Exception {
        InMemoryHaServices stored = new InMemoryHaServices();
        List<JobId> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1);
            env.fromSequence(0, 100).addSink(new DiscardingSink<>());
            JobGraph graph = env.buildJobGraph("stored " + i);
            stored.jobGraphStore().putJobGraph(graph);
            ids.add(graph.jobId());
        }
        GatedHaServices gated = new GatedHaServices(stored);
        try (LocalCluster cluster = LocalCluster.builder().taskExecutors(10).slotsPerTaskExecutor(2)
                .haServices(gated, true).build()) {
            // Not yet leading, and no other leader: stored ids are reported as initializing, not unknown.
            DispatcherGateway starting = cluster.jobManagers().get(0).dispatcher();
            JobDetails beforeLeadership = starting.requestJobDetails(ids.get(3)).get(1, TimeUnit.SECONDS);
            assertThat(beforeLeadership.status()).isEqualTo(JobStatus.INITIALIZING);
            assertThat(beforeLeadership.recovery().phase()).contains("waiting for dispatcher leadership");
            gated.electionGate.countDown();
            DispatcherGateway dispatcher = cluster.dispatcher();
            await().atMost(Duration.ofSeconds(5)).until(() -> gated.listingCalls.getCount() == 0);

            // Listing blocked: every stored id is reported as initializing, nothing waits.
            for (JobId id : ids) {
                JobDetails d = dispatcher.requestJobDetails(id).get(1, TimeUnit.SECONDS);
                assertThat(d.status()).isEqualTo(JobStatus.INITIALIZING);
                assertThat(d.recovery().phase()).contains("recovering its list of jobs");
            }
            assertThat(dispatcher.listJobs().get(1, TimeUnit.SECONDS)).isEmpty();
            assertThatThrownBy(() -> dispatcher.cancelJob(ids.get(0)).get(1, TimeUnit.SECONDS))
                    .hasMessageContaining("still being recovered");

            // Listing done, graphs still blocked: the jobs are listed as INITIALIZING, reading their graph.
            gated.listGate.countDown();
            await().atMost(Duration.ofSeconds(5)).until(() -> dispatcher.listJobs().get(1, TimeUnit.SECONDS).size() == 20);
            assertThat(dispatcher.listJobs().get(1, TimeUnit.SECONDS))
                    .allSatisfy(j -> assertThat(j.status()).isEqualTo(JobStatus.INITIALIZING));
            JobDetails reading = dispatcher.requestJobDetails(ids.get(7)).get(1, TimeUnit.SECONDS);
            assertThat(reading.recovery().phase()).isEqualTo("reading the job graph");

            // Graphs released: every job runs to the end.
            gated.graphGate.countDown();
            for (JobId id : ids) {
                assertThat(dispatcher.requestJobResult(id).get(60, TimeUnit.SECONDS).status()).isEqualTo(JobStatus.FINISHED);
            }
        }
    }

    /** Delegates to real HA services, but holds job listing and job graph reads until released. */
    static final class GatedHaServices implements HighAvailabilityServices {
        final CountDownLatch listGate = new CountDownLatch(1);
        final CountDownLatch electionGate = new CountDownLatch(1);
        final CountDownLatch graphGate = new CountDownLatch(1);
        final CountDownLatch listingCalls = new CountDownLatch(1);
        private final HighAvailabilityServices delegate;

        GatedHaServices(HighAvailabilityServices delegate) {
            this.delegate = delegate;
        }

        @Override
        public LeaderElection jobLeaderElection(JobId jobId, String contenderId) {
            return delegate.jobLeaderElection(jobId, contenderId);
        }

        @Override
        public LeaderElection dispatcherLeaderElection(String contenderId) {
            LeaderElection election = delegate.dispatcherLeaderElection(contenderId);
            return new LeaderElection() {
                @Override
                public void startLeaderElection(io.sluice.ha.LeaderContender contender) {
                    // Joins only once the test opens the gate; must not block the caller (a main thread).
                    Thread joiner = new Thread(() -> {
                        try {
                            electionGate.await();
                            election.startLeaderElection(contender);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }, "gated-dispatcher-election");
                    joiner.setDaemon(true);
                    joiner.start();
                }

                @Override
                public boolean hasLeadership(java.util.UUID leaderSessionId) {
                    return election.hasLeadership(leaderSessionId);
                }

                @Override
                public void runIfLeader(java.util.UUID leaderSessionId, FencedWrite write) throws Exception {
                    election.runIfLeader(leaderSessionId, write);
                }

                @Override
                public void close() {
                    electionGate.countDown();
                    election.close();
                }
            };
        }

        @Override
        public io.sluice.ha.LeaderRetrieval dispatcherLeaderRetrieval() {
            return delegate.dispatcherLeaderRetrieval();
        }

        @Override
        public JobGraphStore jobGraphStore() {
            JobGraphStore store = delegate.jobGraphStore();
            return new JobGraphStore() {
                @Override
                public void putJobGraph(JobGraph jobGraph) throws Exception {
                    store.putJobGraph(jobGraph);
                }

                @Override
                public Collection<JobId> jobIds() throws Exception {
                    listingCalls.countDown();
                    listGate.await();
                    return store.jobIds();
                }

                @Override
                public JobGraph recoverJobGraph(JobId jobId) throws Exception {
                    graphGate.await();
                    return store.recoverJobGraph(jobId);
                }

                @Override
                public void removeJobGraph(JobId jobId) throws Exception {
                    store.removeJobGraph(jobId);
                }
            };
        }

        @Override
        public JobResultStore jobResultStore() {
            return delegate.jobResultStore();
        }

        @Override
        public CheckpointRecoveryFactory checkpointRecoveryFactory() {
            return delegate.checkpointRecoveryFactory();
        }

        @Override
        public io.sluice.ha.SavepointStore savepointStore() {
            return delegate.savepointStore();
        }

        @Override
        public void close() {
            electionGate.countDown();
            listGate.countDown();
            graphGate.countDown();
            delegate.close();
        }
    }

}
