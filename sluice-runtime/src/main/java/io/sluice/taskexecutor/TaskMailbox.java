package io.sluice.taskexecutor;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Work other threads hand to a task thread (checkpoint triggers, completion and abort notices),
 * which the task thread runs between records: a source every batch, other tasks between buffers.
 * {@link #put} from any thread; {@link #drain} on the task thread only (checked).
 */
final class TaskMailbox {
    /** One piece of work for the task thread. */
    @FunctionalInterface
    interface Mail {
        void run() throws Exception;
    }

    private final ConcurrentLinkedQueue<Mail> queue = new ConcurrentLinkedQueue<>();
    private final TaskThread taskThread;

    TaskMailbox(TaskThread taskThread) {
        this.taskThread = taskThread;
    }

    /** Queues {@code mail} for the task thread. Any thread; never blocks. */
    void put(Mail mail) {
        queue.add(mail);
    }

    /** Runs every queued mail, including what is queued meanwhile, in order. Task thread. */
    void drain() throws Exception {
        taskThread.check("Draining the mailbox");
        Mail mail;
        while ((mail = queue.poll()) != null) {
            mail.run();
        }
    }
}
