package io.sluice.dispatcher;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.concurrent.Futures;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.JobAlreadySubmittedException;
import io.sluice.ha.LeadershipLostException;
import io.sluice.jar.ClassLoaderLease;
import io.sluice.protocol.JobSubmissionException;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job submission: admitted on the main thread (leading, not known yet, enough slots, a usable
 * checkpoint location), stored on the I/O executor (checkpoint storage writable, no result yet, the
 * graph put fenced on the dispatcher leadership so a deposed leader's put never lands after the new
 * leader listed the stored jobs), then started on the main thread if the leadership it was admitted
 * under still holds.
 *
 * <p>Threading: {@link #submit} from any thread; the steps as said.
 */
final class JobSubmission {
    private static final Logger LOG = LoggerFactory.getLogger(JobSubmission.class);

    private final DispatcherCore core;
    private final JobRunners runners;

    /** What the main thread decided at submission: where checkpoints go, and under which leadership. */
    private record Admitted(CheckpointStorage storage, UUID session, ClassLoaderLease lease) {
        Admitted withLease(ClassLoaderLease l) {
            return new Admitted(storage, session, l);
        }
    }

    JobSubmission(DispatcherCore core, JobRunners runners) {
        this.core = core;
        this.runners = runners;
    }

    CompletableFuture<JobId> submit(JobGraph jobGraph) {
        java.util.concurrent.atomic.AtomicBoolean admittedHere = new java.util.concurrent.atomic.AtomicBoolean();
        return CompletableFuture.supplyAsync(() -> {
                    Admitted admitted = admit(jobGraph);
                    admittedHere.set(true);
                    return admitted;
                }, core.mainThread)
                .thenApplyAsync(admitted -> store(jobGraph, admitted), core.services.ioExecutor())
                .handleAsync((admitted, error) -> start(jobGraph, admittedHere.get(), admitted, error), core.mainThread);
    }

    private Admitted admit(JobGraph jobGraph) {
        core.assertMainThread();
        JobId id = jobGraph.jobId();
        String what = "Job '" + jobGraph.name() + "' (" + id + ")";
        if (core.closed) {
            throw new JobSubmissionException(what + " was rejected: the job manager is shutting down");
        }
        if (core.leaderSession == null) {
            throw new JobSubmissionException(what + " was rejected. " + core.standbyMessage("submit to"));
        }
        if (core.jobs.isActive(id)) {
            throw new JobSubmissionException(what + " was rejected: a job with this id is already running here");
        }
        if (core.jobs.execution(id).orElse(null) instanceof JobExecution.Ended ended) {
            throw new JobSubmissionException(what + " was rejected: it already ended (" + ended.result().status()
                    + "); submit it under a new job id");
        }
        var slots = core.services.slotPool();
        // A dynamic pool (cluster mode) grows as task executors register: the job waits for its slots.
        if (!slots.isDynamic() && jobGraph.requiredSlots() > slots.totalSlots()) {
            throw new JobSubmissionException(what + " was rejected: it needs " + jobGraph.requiredSlots()
                    + " slots (its largest parallelism) but the cluster has only " + slots.totalSlots()
                    + ". Lower the parallelism or add task executors or slots.");
        }
        CheckpointStorage storage;
        try {
            storage = core.services.checkpointStorages().forLocation(jobGraph.config().checkpointDir());
        } catch (RuntimeException e) {
            throw new JobSubmissionException(what + " was rejected: " + e.getMessage(), e);
        }
        core.jobs.enter(core.jobs.getOrCreate(id), new JobExecution.Submitting());
        return new Admitted(storage, core.leaderSession, null);
    }

    /** I/O thread. */
    private Admitted store(JobGraph jobGraph, Admitted admitted) {
        String what = "Job '" + jobGraph.name() + "' (" + jobGraph.jobId() + ") was rejected: ";
        try {
            if (jobGraph.config().checkpointingEnabled()) {
                admitted.storage().checkWritable();
            }
            if (core.services.ha().jobResultStore().hasResult(jobGraph.jobId())) {
                throw new JobSubmissionException(what + "it already ended; submit it under a new job id");
            }
            // Conditional: a duplicate job id is rejected by the store.
            core.election.runIfLeader(admitted.session(), () -> core.services.ha().jobGraphStore().putJobGraph(jobGraph));
            return admitted.withLease(core.services.userCode().acquire(jobGraph.jobId()));
        } catch (JobSubmissionException e) {
            throw e;
        } catch (JobAlreadySubmittedException e) {
            throw new JobSubmissionException(what + e.getMessage(), e);
        } catch (LeadershipLostException e) {
            throw new JobSubmissionException(what + "this job manager (" + core.id() + ") lost the dispatcher"
                    + " leadership while storing it; submit to the new leader", e);
        } catch (Exception e) {
            throw new JobSubmissionException(what + e.getMessage(), e);
        }
    }

    private JobId start(JobGraph graph, boolean admittedHere, Admitted admitted, Throwable error) {
        core.assertMainThread();
        JobRecord record = core.jobs.get(graph.jobId());
        if (admittedHere && record != null && record.execution() instanceof JobExecution.Submitting) {
            core.jobs.enter(record, null);
        }
        if (error != null) {
            Throwable cause = Futures.unwrap(error);
            throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
        }
        if (core.closed) {
            admitted.lease().close();
            throw new JobSubmissionException("Job " + graph.jobId() + " was stored but the job manager is shutting"
                    + " down; it will be recovered by the next dispatcher leader");
        }
        if (!admitted.session().equals(core.leaderSession)) {
            admitted.lease().close();
            // Stored under our leadership before it ended: the next leader's recovery lists it.
            LOG.info("Accepted job '{}' ({}); leadership changed meanwhile, the dispatcher leader will run it",
                    graph.name(), graph.jobId());
            return graph.jobId();
        }
        LOG.info("Accepted job '{}' ({})", graph.name(), graph.jobId());
        if (!core.jobs.isActive(graph.jobId())) {
            runners.start(graph, admitted.lease(), core.services.recoveryReads().nextTicket());
        } else {
            admitted.lease().close();
        }
        return graph.jobId();
    }
}
