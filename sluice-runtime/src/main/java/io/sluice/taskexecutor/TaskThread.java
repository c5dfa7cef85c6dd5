package io.sluice.taskexecutor;

/**
 * The thread one task runs on, and the check that task-thread-only code runs there. Bound once,
 * before the thread starts ({@code Task.start}); unit tests of a task's parts bind their own thread.
 * The check costs one reference comparison: the parts call it at their entry points (set-up, a
 * checkpoint, a restore, draining the mailbox), not per record. Any thread may read it.
 */
final class TaskThread {
    private final String taskName;
    private volatile Thread thread;

    TaskThread(String taskName) {
        this.taskName = taskName;
    }

    /** A task thread that is the calling thread (for tests of a task's parts). */
    static TaskThread current(String taskName) {
        TaskThread t = new TaskThread(taskName);
        t.bind(Thread.currentThread());
        return t;
    }

    /** Makes {@code t} the task thread; once. */
    void bind(Thread t) {
        if (thread != null) {
            throw new IllegalStateException("Task " + taskName + " already runs on " + thread.getName());
        }
        thread = t;
    }

    /** The task thread, or {@code null} before it was bound. */
    Thread thread() {
        return thread;
    }

    /**
     * Fails unless called on the task thread.
     *
     * @param what the action, for the message ("a checkpoint", "the set-up")
     */
    void check(String what) {
        Thread t = thread;
        if (Thread.currentThread() != t) {
            throw new IllegalStateException(what + " of task " + taskName + " must run on its task thread ("
                    + (t == null ? "not started" : t.getName()) + "), not on " + Thread.currentThread().getName());
        }
    }
}
