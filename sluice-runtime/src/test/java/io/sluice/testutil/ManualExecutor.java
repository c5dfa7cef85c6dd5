package io.sluice.testutil;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Executor;

/**
 * An {@link Executor} that only queues; {@link #triggerAll()} runs the queue on the calling
 * thread. Stands in for I/O executors in tests so that the order of completions is chosen by the
 * test. {@link #execute} may be called from any thread; trigger from one thread at a time.
 */
public final class ManualExecutor implements Executor {
    private final Deque<Runnable> queue = new ArrayDeque<>();

    @Override
    public void execute(Runnable command) {
        if (command == null) {
            throw new NullPointerException("command");
        }
        synchronized (queue) {
            queue.addLast(command);
        }
    }

    /**
     * Runs queued commands in submission order, including those queued while running, until the
     * queue is empty. A command that throws stops the run and propagates; the rest stay queued.
     *
     * @return the number of commands run
     */
    public int triggerAll() {
        int ran = 0;
        Runnable next;
        while ((next = poll()) != null) {
            next.run();
            ran++;
        }
        return ran;
    }

    public int numQueued() {
        synchronized (queue) {
            return queue.size();
        }
    }

    private Runnable poll() {
        synchronized (queue) {
            return queue.pollFirst();
        }
    }
}
