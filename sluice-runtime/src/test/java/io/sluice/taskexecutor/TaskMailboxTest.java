package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Mail from other threads runs on the task thread, in order, including mail that a mail puts. */
class TaskMailboxTest {
    private final TaskThread taskThread = TaskThread.current("Count (1/1)");
    private final TaskMailbox mailbox = new TaskMailbox(taskThread);
    private final List<String> ran = new CopyOnWriteArrayList<>();

    @Test
    void mailPutByAnotherThreadRunsOnTheTaskThreadInOrder() throws Exception {
        String taskThreadName = Thread.currentThread().getName();
        CompletableFuture.runAsync(() -> {
            mailbox.put(() -> ran.add("trigger 1 on " + Thread.currentThread().getName()));
            mailbox.put(() -> {
                ran.add("complete 1 on " + Thread.currentThread().getName());
                mailbox.put(() -> ran.add("aborted 2 on " + Thread.currentThread().getName()));
            });
        }).get(10, TimeUnit.SECONDS);
        assertThat(ran).as("nothing runs before the task thread drains").isEmpty();

        mailbox.drain();

        assertThat(ran).containsExactly("trigger 1 on " + taskThreadName, "complete 1 on " + taskThreadName,
                "aborted 2 on " + taskThreadName);
    }

    @Test
    void onlyTheTaskThreadMayDrain() throws Exception {
        mailbox.put(() -> ran.add("trigger 1"));

        Throwable error = CompletableFuture.runAsync(() -> {
            try {
                mailbox.drain();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).handle((ok, e) -> e).get(10, TimeUnit.SECONDS);

        assertThat(error).hasRootCauseInstanceOf(IllegalStateException.class)
                .rootCause().hasMessageContaining("Count (1/1)").hasMessageContaining("task thread");
        assertThat(ran).isEmpty();
        assertThatThrownBy(() -> taskThread.bind(Thread.currentThread())).isInstanceOf(IllegalStateException.class);
    }
}
