package io.sluice.ha.zookeeper;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the tasks given to it one at a time, in submission order, on a shared pool: the blocking
 * ZooKeeper work of one component (an election place, a leader retrieval) is serialized without a
 * thread of its own, and cannot hold back the notification thread or another component.
 * Thread-safe; {@link #execute} never blocks. A task that throws is logged and the next one runs.
 */
final class SerialExecutor implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);

    private final Executor pool;
    private final String name;
    private final Queue<Runnable> queue = new ArrayDeque<>();
    private boolean draining;

    SerialExecutor(Executor pool, String name) {
        this.pool = pool;
        this.name = name;
    }

    /** @throws RejectedExecutionException if the pool is shut down (the task is dropped) */
    @Override
    public void execute(Runnable task) {
        synchronized (queue) {
            queue.add(task);
            if (draining) {
                return;
            }
            draining = true;
        }
        try {
            pool.execute(this::drain);
        } catch (RejectedExecutionException e) {
            synchronized (queue) {
                queue.clear();
                draining = false;
            }
            throw e;
        }
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (queue) {
                next = queue.poll();
                if (next == null) {
                    draining = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                LOG.error("A ZooKeeper task of {} failed", name, e);
            }
        }
    }
}
