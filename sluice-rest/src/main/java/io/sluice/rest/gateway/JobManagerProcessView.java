package io.sluice.rest.gateway;

import io.sluice.cluster.process.JobManagerProcess;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.rest.ClusterOverview;
import io.sluice.rest.RestException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The {@link ClusterView} of a {@code sluice jobmanager} process. Its REST server starts before the
 * job manager (whose advertised address names the REST URL), so the process is {@link #attach}ed
 * once it runs; until then every job question is answered 503.
 *
 * <p>A standby answers job questions by forwarding them to the leader's Dispatcher over RPC
 * ({@link JobManagerProcess#leaderDispatcher()}); while no leader is known (a failover in progress)
 * it answers 503 saying so. Its overview names the leader and lists no task executors: they register
 * with the leader only.
 *
 * <p>Threading: any thread; from memory.
 */
public final class JobManagerProcessView implements ClusterView {
    private final AtomicReference<JobManagerProcess> process = new AtomicReference<>();

    /** Serves {@code jobManager} from now on. */
    public void attach(JobManagerProcess jobManager) {
        process.set(jobManager);
    }

    private JobManagerProcess process() {
        JobManagerProcess p = process.get();
        if (p == null) {
            throw new RestException(503, "This job manager is still starting (connecting to its HA services); retry in"
                    + " a moment");
        }
        return p;
    }

    @Override
    public DispatcherGateway dispatcher() {
        JobManagerProcess p = process();
        return p.leaderDispatcher().orElseThrow(() -> new RestException(503, "Job manager " + p.id() + " is a standby"
                + p.leaderContenderId().map(l -> " and cannot reach the leader " + l + " yet")
                        .orElse(" and no job manager leads the cluster right now (a failover in progress, or the"
                                + " leader is starting)")
                + "; retry in a moment"));
    }

    @Override
    public List<ClusterOverview.TaskExecutorInfo> taskExecutors() {
        JobManagerProcess p = process.get();
        if (p == null) {
            return List.of();
        }
        return p.taskExecutors().stream()
                .map(te -> new ClusterOverview.TaskExecutorInfo(te.id(), te.slots(), te.slotsFree())).toList();
    }

    @Override
    public ClusterOverview.Leader leader() {
        JobManagerProcess p = process.get();
        if (p == null) {
            return new ClusterOverview.Leader(null, false);
        }
        Optional<String> leader = p.leaderContenderId();
        return new ClusterOverview.Leader(leader.orElse(null), leader.isPresent() && leader.get().equals(p.contenderId())
                && p.dispatcher().isLeader());
    }
}
