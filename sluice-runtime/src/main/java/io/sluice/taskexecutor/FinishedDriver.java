package io.sluice.taskexecutor;

/**
 * The driver of a task restored as finished ({@code TaskRestore.finished}): its operators' {@code
 * finish} ran before the checkpoint it restores, so it emits nothing and its outputs end at once.
 * Task thread.
 */
final class FinishedDriver implements RecordDriver {

    @Override
    public void run() {
    }

    @Override
    public long recordsIn() {
        return 0;
    }

    @Override
    public boolean finishesOperators() {
        return false;
    }
}
