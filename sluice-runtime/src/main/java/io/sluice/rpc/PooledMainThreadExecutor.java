package io.sluice.rpc;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link MainThreadExecutor} that borrows its thread from a shared pool: commands run one at a
 * time, in submission order, never two at once, so a component whose state lives here has a main
 * thread in every sense that matters (ordering, exclusion, {@link #isMainThread()}, the I/O guard of
 * {@link MainThreads}), while a thousand components need only the pool's few threads. Made by
 * {@link MainThreadPool#newMainThread(String)}.
 *
 * <p>Fairness: after {@value #BATCH} commands in a row the executor hands its pool thread back and
 * queues itself again, so one busy component does not hold a pool thread while others wait.
 * Uncaught exceptions in commands are logged (a command that throws is a bug: components report
 * expected errors through futures).
 *
 * <p>Threading: {@link #execute} and {@link #schedule} from any thread.
 */
public final class PooledMainThreadExecutor implements MainThreadExecutor {
    private static final Logger LOG = LoggerFactory.getLogger(PooledMainThreadExecutor.class);
    /** Commands run per turn on a pool thread before yielding it; small enough to keep turns short. */
    static final int BATCH = 64;

    private final String componentName;
    private final Executor pool;
    private final ScheduledExecutorService timer;
    private final Object lock = new Object();
    /** Guarded by lock. */
    private final Deque<Runnable> queue = new ArrayDeque<>();
    /** Guarded by lock: whether a turn is queued on or running in the pool. */
    private boolean scheduled;
    /** The pool thread running this executor's turn, or null. */
    private volatile Thread running;

    PooledMainThreadExecutor(String componentName, Executor pool, ScheduledExecutorService timer) {
        this.componentName = componentName;
        this.pool = pool;
        this.timer = timer;
    }

    @Override
    public void execute(Runnable command) {
        if (command == null) {
            throw new NullPointerException("command");
        }
        boolean start;
        synchronized (lock) {
            queue.addLast(command);
            start = !scheduled;
            scheduled = true;
        }
        if (start) {
            submitTurn();
        }
    }

    private void submitTurn() {
        try {
            pool.execute(this::turn);
        } catch (RejectedExecutionException e) {
            LOG.debug("Dropped the commands of {}: its pool has stopped", componentName);
            synchronized (lock) {
                queue.clear();
                scheduled = false;
            }
        }
    }

    private void turn() {
        String previous = MainThreads.currentComponent();
        running = Thread.currentThread();
        MainThreads.markCurrentThread(componentName);
        try {
            for (int i = 0; i < BATCH; i++) {
                Runnable next;
                synchronized (lock) {
                    next = queue.pollFirst();
                    if (next == null) {
                        scheduled = false;
                        return;
                    }
                }
                runGuarded(next);
            }
        } finally {
            running = null;
            if (previous == null) {
                MainThreads.clearCurrentThread();
            } else {
                MainThreads.markCurrentThread(previous);
            }
        }
        submitTurn(); // more queued: yield the pool thread and come back
    }

    private void runGuarded(Runnable command) {
        try {
            command.run();
        } catch (Throwable t) {
            LOG.error("Unexpected error on the main thread of {}", componentName, t);
        }
    }

    /**
     * A command due now (zero or negative delay) goes straight into the queue: through the timer it
     * would wait for two thread hand-offs (the timer's thread, then a pool thread), even when scheduled
     * from this main thread, whose running turn takes it next anyway. A job's restart with no restart
     * delay is scheduled this way; the hand-offs made task failover about 0.5 ms slower than with the
     * dedicated main thread before (docs/benchmarks.md, issue 19). Cancelling before it runs drops it.
     */
    @Override
    public ScheduledTask schedule(Runnable command, Duration delay) {
        if (delay.isNegative() || delay.isZero()) {
            AtomicBoolean cancelled = new AtomicBoolean();
            execute(() -> {
                if (!cancelled.get()) {
                    command.run();
                }
            });
            return () -> cancelled.set(true);
        }
        try {
            ScheduledFuture<?> f = timer.schedule(() -> execute(command), Math.max(0, delay.toNanos()),
                    TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        } catch (RejectedExecutionException e) {
            LOG.debug("Dropped a scheduled command for {}: its pool has stopped", componentName);
            return () -> { };
        }
    }

    @Override
    public boolean isMainThread() {
        return Thread.currentThread() == running;
    }

    @Override
    public String componentName() {
        return componentName;
    }
}
