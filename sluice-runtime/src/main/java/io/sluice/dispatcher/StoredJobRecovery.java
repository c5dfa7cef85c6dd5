package io.sluice.dispatcher;

import io.sluice.concurrent.Futures;
import io.sluice.concurrent.RetryRunner;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.jar.ClassLoaderLease;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.UnknownJobException;
import java.time.Duration;
import java.util.Collection;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovers the stored jobs when this Dispatcher gains the dispatcher leadership: lists the job ids
 * and the results of jobs that ended before with one call, then reads each job's graph (and jar)
 * separately, retrying with the recovery backoff, each read waiting for its turn in the job manager's
 * {@link io.sluice.jobmaster.RecoveryReads} (bounded, in listing order), and starts each job's
 * runner with the same place in the recovery order. A job cancelled before its graph could be read
 * ends CANCELED (its checkpoints are kept). Every callback re-checks the leader session it was
 * started under.
 *
 * <p>Threading: the Dispatcher's main thread; storage calls on the I/O executor.
 */
final class StoredJobRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(StoredJobRecovery.class);

    private final DispatcherCore core;
    private final JobRunners runners;
    /** Told (main thread) once the stored jobs are listed under a session: the ids and the ended jobs' results. */
    private final BiConsumer<UUID, StoredJobs> listed;

    /** What the stores hold at start: jobs to recover, and results of jobs that ended before. */
    record StoredJobs(Collection<JobId> ids, Collection<JobResult> results) {
    }

    /** A job graph read back from the HA services, with the lease on the class loader of its user code. */
    private record RecoveredJob(JobGraph graph, ClassLoaderLease lease) {
    }

    StoredJobRecovery(DispatcherCore core, JobRunners runners, BiConsumer<UUID, StoredJobs> listed) {
        this.core = core;
        this.runners = runners;
        this.listed = listed;
    }

    /** Leadership granted under {@code session}: list and recover the stored jobs. */
    void recover(UUID session) {
        core.assertMainThread();
        core.listingJobs = true;
        list(session);
    }

    /** Leadership lost: the graph reads stop and the jobs being read are forgotten (the new leader reads them). */
    void stop() {
        core.listingJobs = false;
        for (JobRecord record : core.jobs.inStage(JobExecution.ReadingGraph.class)) {
            JobExecution.ReadingGraph reading = (JobExecution.ReadingGraph) record.execution();
            if (reading.read() != null) {
                reading.read().cancel();
            }
            core.jobs.enter(record, null);
        }
    }

    /** Lists the stored jobs, retrying while leading under {@code session} (the next grant lists again otherwise). */
    private void list(UUID session) {
        retrying(() -> core.leads(session))
                .onRetry((attempt, error, delay) -> LOG.warn("Could not list the stored jobs (attempt {}): {}; retrying"
                        + " in {} ms", attempt, JobResult.describe(error), delay.toMillis()))
                .start(attempt -> CompletableFuture.supplyAsync(() -> {
                    try {
                        return new StoredJobs(core.services.ha().jobGraphStore().jobIds(),
                                core.services.ha().jobResultStore().results());
                    } catch (Exception e) {
                        throw new CompletionException(e);
                    }
                }, core.services.ioExecutor()))
                .result().thenAccept(stored -> {
                    recoverListed(session, stored);
                    // Only now: a status call that no longer sees the listing sees every listed job (JobQueries).
                    core.listingJobs = false;
                });
    }

    /** A retry loop on the main thread with the recovery backoff, for as long as {@code current} holds. */
    private RetryRunner.Builder retrying(BooleanSupplier current) {
        return RetryRunner.with(core.services.recoveryBackoff().policy()).scheduler(core.mainThread)
                .clock(core.services.clock()).random(core.services.random()).whileCurrent(current);
    }

    private void recoverListed(UUID session, StoredJobs stored) {
        for (JobResult r : stored.results()) {
            JobRecord record = core.jobs.getOrCreate(r.jobId());
            if (record.execution() == null) {
                runners.recordEnded(record, r, JobRunners.detailsOf(r));
            } else {
                core.jobs.forgetIfIdle(record);
            }
        }
        Collection<JobId> ids = stored.ids();
        LOG.info("Recovering {} stored job(s); {} ended before", ids.size(), stored.results().size());
        for (JobId id : ids) {
            JobRecord record = core.jobs.getOrCreate(id);
            if (record.execution() == null) {
                long ticket = core.services.recoveryReads().nextTicket();
                core.jobs.enter(record, new JobExecution.ReadingGraph(ticket, null, null, false));
                readGraph(id, 1, session);
            }
        }
        listed.accept(session, stored);
        // Result requests for jobs that are neither stored nor ended: unknown after all.
        for (JobRecord record : core.jobs.matching(r -> r.execution() == null && r.hasResultWaiter())) {
            record.failResult(new UnknownJobException(record.id()));
            core.jobs.forgetIfIdle(record);
        }
    }

    /** The stage of {@code id} if its graph is still being read under {@code session}, else null. */
    private JobExecution.ReadingGraph reading(JobId id, UUID session) {
        if (!core.leads(session)) {
            return null;
        }
        return core.jobs.execution(id).orElse(null) instanceof JobExecution.ReadingGraph r ? r : null;
    }

    private void readGraph(JobId id, int attempt, UUID session) {
        JobExecution.ReadingGraph reading = reading(id, session);
        if (reading == null) {
            return; // cancelled meanwhile, or leadership changed
        }
        CompletableFuture<RecoveredJob> result = new CompletableFuture<>();
        var read = core.services.recoveryReads().reserve(reading.ticket(), "job graph of " + id, () -> {
            try {
                JobGraph graph = core.services.ha().jobGraphStore().recoverJobGraph(id);
                // A job from a jar: its user code is deserialized (by its tasks) with the jar's class loader.
                result.complete(new RecoveredJob(graph, core.services.userCode().acquire(id)));
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        core.jobs.update(core.jobs.get(id), reading.withRead(read));
        result.whenCompleteAsync((recovered, error) -> graphRead(id, attempt, session, recovered, error),
                core.mainThread);
    }

    private void graphRead(JobId id, int attempt, UUID session, RecoveredJob recovered, Throwable error) {
        JobExecution.ReadingGraph reading = reading(id, session);
        if (reading == null || reading.cancelled()) {
            if (recovered != null) {
                recovered.lease().close();
            }
            if (reading != null) {
                endCancelled(id, recovered != null ? recovered.graph().name() : null, session);
            }
            return;
        }
        if (error != null) {
            Duration delay = core.services.recoveryBackoff().delayAfter(attempt, core.services.random());
            String message = describeReadError(error);
            core.jobs.update(core.jobs.get(id), reading.withFailure(new JobExecution.GraphReadFailure(attempt, message,
                    core.services.clock().currentTimeMillis() + delay.toMillis())));
            LOG.warn("Could not read the job graph of job {} (attempt {}): {}; retrying in {} ms (cancel the job"
                    + " to stop; its checkpoints are kept)", id, attempt, message, delay.toMillis());
            core.mainThread.schedule(() -> readGraph(id, attempt + 1, session), delay);
            return;
        }
        runners.start(recovered.graph(), recovered.lease(), reading.ticket());
    }

    /**
     * A cancel for a job whose graph is being read: it ends CANCELED once the read in flight (if any)
     * returns; a read waiting for its retry (or its turn) ends now. Main thread.
     */
    void cancel(JobId id) {
        JobRecord record = core.jobs.get(id);
        JobExecution.ReadingGraph reading = (JobExecution.ReadingGraph) record.execution();
        if (reading.cancelled()) {
            return;
        }
        core.jobs.update(record, reading.cancel());
        boolean waiting = reading.failure() != null || (reading.read() != null && reading.read().ahead() >= 0);
        if (waiting) {
            if (reading.read() != null) {
                reading.read().cancel();
            }
            endCancelled(id, null, core.leaderSession);
        }
    }

    /**
     * A stored job cancelled before its graph could be read (say its jar fails its digest check):
     * records CANCELED in the job result store and removes its graph and jar, fenced on the
     * dispatcher leadership, retrying with backoff; its checkpoints are kept, so it can be started
     * again from them.
     */
    private void endCancelled(JobId id, String name, UUID session) {
        var ha = core.services.ha();
        retrying(() -> reading(id, session) != null)
                .onRetry((attempt, error, delay) -> LOG.warn("Job {} was cancelled, but its result could not be recorded"
                        + " (attempt {}): {}; retrying in {} ms", id, attempt, JobResult.describe(error), delay.toMillis()))
                .start(attempt -> {
                    JobResult result = new JobResult(id, name, JobStatus.CANCELED,
                            core.services.clock().currentTimeMillis(), null, null);
                    return CompletableFuture.supplyAsync(() -> {
                        try {
                            core.election.runIfLeader(session, () -> ha.jobResultStore().putResult(result));
                            core.election.runIfLeader(session, () -> ha.jobGraphStore().removeJobGraph(id));
                            core.election.runIfLeader(session, () -> ha.jobJarStore().removeJobJar(id));
                            return result;
                        } catch (Exception e) {
                            throw new CompletionException(e);
                        }
                    }, core.services.ioExecutor());
                })
                .result().thenAccept(result -> {
                    runners.recordEnded(core.jobs.get(id), result, JobRunners.detailsOf(result));
                    LOG.info("Job {} was cancelled while its graph was being recovered; it ended CANCELED, its"
                            + " checkpoints are kept", id);
                });
    }

    /** The outermost message of a failed read (the stores' own messages say which file and what to do). */
    private static String describeReadError(Throwable error) {
        Throwable t = Futures.unwrap(error);
        return t.getMessage() != null ? t.getMessage() : t.getClass().getName();
    }
}
