package io.sluice.checkpoint.coordinator;

import io.sluice.checkpoint.CheckpointFailureReason;
import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.util.Clock;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first step of a checkpoint: its id, from the {@link CheckpointIdCounter} (HA services), asked
 * on the I/O executor. One request at a time: a request that outlives {@code checkpoints.timeout}
 * fails the checkpoint (a timeout, not counted towards the tolerance) but stays in flight, since the
 * counter takes one request at a time, and its late answer is dropped.
 *
 * <p>An id is never at or below a retained checkpoint, nor one this coordinator already started: a
 * lost or reset counter (its znode or file deleted, restored from a backup) would otherwise hand
 * out ids the store refuses for ever, or collide with the files of a retained checkpoint.
 *
 * <p>Threading: the job master's main thread (checked); the counter is called on the I/O
 * executor and its answer comes back to the main thread.
 */
final class CheckpointIdRequests {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointIdRequests.class);

    /** Told of the counter's answer on the main thread, while checkpointing runs and the request has not expired. */
    interface IdListener {
        /**
         * @param counterId      what the counter returned: pass it through {@link #take} before using it
         * @param requestedNanos when the id was asked for: the checkpoint's timeout counts from there
         */
        void idReady(long counterId, long requestedNanos);
    }

    /** An id request on the I/O executor; expired by the checkpoint timeout if the counter does not answer. */
    private static final class Request {
        final long startedNanos;
        boolean expired;
        MainThreadExecutor.ScheduledTask timeout;

        Request(long startedNanos) {
            this.startedNanos = startedNanos;
        }
    }

    private final JobId jobId;
    private final JobConfig config;
    private final CheckpointIdCounter idCounter;
    private final CompletedCheckpointStore store;
    private final MainThreadExecutor mainThread;
    private final Executor ioExecutor;
    private final Clock clock;
    private final BooleanSupplier running;
    private final CheckpointFailures failures;

    /** The request in flight, or {@code null}. */
    private Request inFlight;
    /** The highest checkpoint id this coordinator started; -1 before the first. */
    private long highestIdStarted = -1;

    CheckpointIdRequests(JobId jobId, JobConfig config, CheckpointIdCounter idCounter, CompletedCheckpointStore store,
                         MainThreadExecutor mainThread, Executor ioExecutor, Clock clock, BooleanSupplier running,
                         CheckpointFailures failures) {
        this.jobId = jobId;
        this.config = config;
        this.idCounter = idCounter;
        this.store = store;
        this.mainThread = mainThread;
        this.ioExecutor = ioExecutor;
        this.clock = clock;
        this.running = running;
        this.failures = failures;
    }

    /** Whether a request is in flight (also one that expired and whose answer is still awaited). */
    boolean inFlight() {
        mainThread.assertRunningInMainThread();
        return inFlight != null;
    }

    /** When the request in flight was made ({@link Clock#nanoTime}), if one is. */
    OptionalLong inFlightSinceNanos() {
        mainThread.assertRunningInMainThread();
        return inFlight == null ? OptionalLong.empty() : OptionalLong.of(inFlight.startedNanos);
    }

    /** Asks for the next id; {@code listener} gets it unless the request fails or expires. */
    void request(IdListener listener) {
        mainThread.assertRunningInMainThread();
        Request request = new Request(clock.nanoTime());
        inFlight = request;
        request.timeout = mainThread.schedule(() -> expire(request), config.checkpointTimeout());
        CompletableFuture.supplyAsync(() -> {
            try {
                return idCounter.getAndIncrement();
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, ioExecutor).whenCompleteAsync((id, error) -> answered(request, id, error, listener), mainThread);
    }

    private void expire(Request request) {
        if (inFlight == request && running.getAsBoolean()) {
            // The request stays in flight (the counter takes one at a time); its late answer is dropped.
            request.expired = true;
            failures.failed(-1, CheckpointFailureReason.TIMED_OUT, "no checkpoint id within the timeout of "
                    + config.checkpointTimeout() + ": the checkpoint id counter (HA services) does not answer");
        }
    }

    private void answered(Request request, Long id, Throwable error, IdListener listener) {
        if (inFlight == request) {
            inFlight = null;
        }
        if (request.timeout != null) {
            request.timeout.cancel();
        }
        if (!running.getAsBoolean() || request.expired) {
            return;
        }
        if (error != null) {
            failures.failed(-1, CheckpointFailureReason.STORAGE,
                    "could not obtain a checkpoint id: " + Causes.rootMessage(error));
            return;
        }
        listener.idReady(id, request.startedNanos);
    }

    /**
     * A checkpoint starts with what the counter gave ({@code counterId}): returns the id to use,
     * above every retained and every started checkpoint, and records it as started.
     */
    long take(long counterId) {
        mainThread.assertRunningInMainThread();
        long id = guarded(counterId);
        highestIdStarted = Math.max(highestIdStarted, id);
        return id;
    }

    private long guarded(long counterId) {
        List<Long> retained = store.retainedIds();
        long floor = Math.max(retained.isEmpty() ? 0 : retained.get(retained.size() - 1) + 1, highestIdStarted + 1);
        if (counterId < floor) {
            LOG.warn("The checkpoint id counter of job {} returned {}, at or below a retained or already used"
                    + " checkpoint (retained {}); taking {} instead (was the counter lost or reset?)", jobId, counterId,
                    retained, floor);
            return floor;
        }
        return counterId;
    }
}
