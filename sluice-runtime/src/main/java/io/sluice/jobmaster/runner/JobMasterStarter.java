package io.sluice.jobmaster.runner;

import io.sluice.jobmaster.JobMaster;
import io.sluice.jobmaster.JobMasterServices;
import io.sluice.job.JobStatus;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.restart.RestartStrategies;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.slots.SlotPool;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

/**
 * Creates the job master of a leader session once its recovery succeeded: takes its slots (a fixed
 * pool; a dynamic pool's job master takes them itself and waits for them), gives it its own main
 * thread ({@code JobManagerServices.jobMasterThreads}), fences its writes and its remote calls on
 * the session, and later starts it on that thread.
 *
 * <p>Threading: the runner's main thread. Status changes of the job master are handed to {@code
 * statusListener} on the runner's main thread.
 */
final class JobMasterStarter {
    private final RunnerSupport support;
    private final BiConsumer<RunningJobMaster, JobStatus> statusListener;

    JobMasterStarter(RunnerSupport support, BiConsumer<RunningJobMaster, JobStatus> statusListener) {
        this.support = support;
        this.statusListener = statusListener;
    }

    RunningJobMaster create(UUID s, Recovered recovered, RecoveryProgress progress)
            throws SlotPool.NotEnoughSlotsException {
        var graph = support.jobGraph;
        var services = support.services;
        List<TaskExecutorGateway> slots = List.of();
        SlotPool pool = services.slotPool();
        if (!pool.isDynamic()) {
            slots = pool.allocate(graph.jobId(), graph.requiredSlots());
        }
        JobMasterServices jmServices = new JobMasterServices(recovered.storage(), recovered.store(),
                recovered.counter(), services.shuffleMaster(), slots, services.ioExecutor(), services.clock(),
                RestartStrategies.create(graph.config().restartStrategy(), services.clock(), services.random()),
                () -> support.election().hasLeadership(s), pool.isDynamic() ? pool : null);
        MainThreadExecutor thread = services.jobMasterThreads().apply("jobmaster-" + graph.jobId().value().substring(0, 8));
        AtomicReference<RunningJobMaster> self = new AtomicReference<>();
        JobMaster jm = new JobMaster(graph, jmServices, thread,
                st -> support.mainThread.execute(() -> statusListener.accept(self.get(), st)));
        jm.fenceRemoteCallsWith(s); // task executors' calls to it over RPC carry session s, refused once s ends
        RunningJobMaster running = new RunningJobMaster(jm, thread, s, recovered, progress.snapshot(),
                new CompletableFuture<>());
        self.set(running);
        return running;
    }

    /** Starts {@code running} on its own thread; its end is reported to {@code ended} on the runner's thread. */
    void start(RunningJobMaster running, BiConsumer<RunningJobMaster, io.sluice.job.JobResult> ended) {
        JobMaster jm = running.jobMaster();
        running.thread().execute(() -> {
            jm.checkpointCoordinator().setMetricsListener(support.metrics);
            support.metrics.healthFrom(jm::health, jm::checkpointAgeMillis);
            jm.start();
        });
        jm.resultFuture().whenCompleteAsync((result, error) -> ended.accept(running, result), support.mainThread);
    }
}
