package io.sluice.cluster.membership;

import io.sluice.rpc.MainThreadExecutor;
import io.sluice.rpc.remote.FencingTokenMismatchException;
import io.sluice.util.Clock;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The heartbeats of one registration of a task executor ({@link JobManagerConnector}): every
 * {@code heartbeat.interval} it sends a heartbeat to the job manager's registry, and reports the job
 * manager as lost when no heartbeat was answered for {@code heartbeat.timeout}, when the job manager
 * no longer knows the registration, or when it refuses the heartbeat for its leader session (it was
 * deposed). Other failures of single heartbeats are only logged: the timeout decides.
 *
 * <p>Threading: main thread (the task executor's) only; the answers hop there. Every scheduled run
 * and answer first checks that its registration is still current (the connector's epoch), and
 * nothing runs after {@link #stop}.
 */
final class HeartbeatSender {
    private static final Logger LOG = LoggerFactory.getLogger(HeartbeatSender.class);

    private final TaskExecutorRegistryGateway target;
    private final String targetDescription;
    private final String taskExecutorId;
    private final UUID registrationId;
    private final MainThreadExecutor mainThread;
    private final Clock clock;
    private final HeartbeatSettings heartbeats;
    /** The registration's epoch; {@code current} tells whether it is still the connector's. */
    private final long epoch;
    private final LongPredicate current;
    /** Told the reason once the job manager counts as lost; the connector then registers again. */
    private final Consumer<String> lost;
    private long lastHeardNanos;
    private MainThreadExecutor.ScheduledTask timer;

    HeartbeatSender(TaskExecutorRegistryGateway target, String targetDescription, String taskExecutorId,
                    UUID registrationId, MainThreadExecutor mainThread, Clock clock, HeartbeatSettings heartbeats,
                    long epoch, LongPredicate current, Consumer<String> lost) {
        this.target = target;
        this.targetDescription = targetDescription;
        this.taskExecutorId = taskExecutorId;
        this.registrationId = registrationId;
        this.mainThread = mainThread;
        this.clock = clock;
        this.heartbeats = heartbeats;
        this.epoch = epoch;
        this.current = current;
        this.lost = lost;
    }

    /** Counts the job manager as heard now and schedules the first heartbeat. */
    void start() {
        lastHeardNanos = clock.nanoTime();
        scheduleHeartbeat();
    }

    /** Cancels the next heartbeat; answers still to come are ignored by the epoch check. */
    void stop() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    private void scheduleHeartbeat() {
        timer = mainThread.schedule(() -> {
            if (current.test(epoch)) {
                timer = null;
                heartbeat();
            }
        }, heartbeats.interval());
    }

    private void heartbeat() {
        if (clock.nanoTime() - lastHeardNanos >= heartbeats.timeout().toNanos()) {
            lost.accept("no heartbeat from " + targetDescription + " for " + heartbeats.describeTimeout());
            return;
        }
        CompletableFuture<HeartbeatResponse> answer;
        try {
            answer = target.heartbeatFromTaskExecutor(taskExecutorId, registrationId);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenCompleteAsync((r, error) -> {
            if (!current.test(epoch)) {
                return;
            }
            if (error == null && r == HeartbeatResponse.ACCEPTED) {
                lastHeardNanos = clock.nanoTime();
            } else if (error == null) {
                lost.accept(targetDescription + " no longer knows this task manager (it counted it as lost,"
                        + " restarted, or no longer leads)");
            } else if (FencingTokenMismatchException.isCause(error)) {
                lost.accept(targetDescription + " refused the heartbeat: " + JobManagerConnector.describe(error));
            } else {
                LOG.debug("Heartbeat of task manager {} to {} failed: {}", taskExecutorId, targetDescription,
                        JobManagerConnector.describe(error));
            }
        }, mainThread);
        scheduleHeartbeat();
    }
}
