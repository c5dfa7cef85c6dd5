package io.sluice.taskexecutor;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Work other threads hand to a task thread (checkpoint triggers, completion and abort notices),
 * which the task thread runs between records: a source every batch, other tasks between buffers.
 * {@link #put} from any thread; {@link #drain} and {@link #awaitAndDrain} on the task thread only (checked).
 */
final class TaskMailbox {
    /** One piece of work for the task thread. */
    @FunctionalInterface
    interface Mail {
        void run() throws Exception;
    }

    private final LinkedBlockingQueue<Mail> queue = new LinkedBlockingQueue<>();
    private final TaskThread taskThread;
    /** Wakes the task thread where it waits for something other than mail (its input gate); set once. */
    private volatile Runnable wakeUp = () -> { };

    TaskMailbox(TaskThread taskThread) {
        this.taskThread = taskThread;
    }

    /** Queues {@code mail} for the task thread and wakes it. Any thread; never blocks. */
    void put(Mail mail) {
        queue.add(mail);
        wakeUp.run();
    }

    /**
     * What {@link #put} runs after queueing mail, for a task thread that sleeps elsewhere than in {@link
     * #awaitAndDrain} (an input task waits on its input gate: {@code gate::wakeUp}). Task thread, before it
     * first waits; mail queued earlier is drained before that wait.
     */
    void onMail(Runnable wakeUp) {
        taskThread.check("Setting the mailbox's wake-up");
        this.wakeUp = java.util.Objects.requireNonNull(wakeUp, "wakeUp");
    }

    /**
     * Waits up to {@code timeoutNanos} for mail, then runs every queued mail as {@link #drain} does: for a
     * task with no input left that only waits for notices. Task thread; a cancel's interrupt ends the wait
     * with {@link InterruptedException}.
     */
    void awaitAndDrain(long timeoutNanos) throws Exception {
        taskThread.check("Waiting for mail");
        Mail first = queue.poll(timeoutNanos, TimeUnit.NANOSECONDS);
        if (first != null) {
            first.run();
            drain();
        }
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
